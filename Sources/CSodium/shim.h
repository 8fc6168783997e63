#ifndef SYNCKERNEL_CSODIUM_SHIM_H
#define SYNCKERNEL_CSODIUM_SHIM_H
#include <sodium.h>
#endif
