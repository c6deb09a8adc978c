// SQLite shim. Provider: apt libsqlite3-dev. Only the Journal module imports this.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type csqlite_static(void) { return SQLITE_STATIC; }
/// sqlite3_config is variadic; Swift cannot call it. Turns off memory-usage statistics (a global mutex taken
/// on every allocation). Must run before SQLite initialises; returns SQLITE_MISUSE afterwards.
static inline int csqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
