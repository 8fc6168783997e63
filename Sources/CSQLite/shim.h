#ifndef SYNCKERNEL_CSQLITE_SHIM_H
#define SYNCKERNEL_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot import.
static inline sqlite3_destructor_type synckernel_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}
#endif
