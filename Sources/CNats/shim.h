#ifndef SYNCKERNEL_CNATS_SHIM_H
#define SYNCKERNEL_CNATS_SHIM_H
#include <nats/nats.h>
#endif
