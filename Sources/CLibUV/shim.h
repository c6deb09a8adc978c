// libuv shim. Provider: apt libuv1-dev. Only the UVTransport module imports this.
#ifndef CLIBUV_SHIM_H
#define CLIBUV_SHIM_H
#include <uv.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>

/// Handle casts that Swift cannot spell without unsafe pointer juggling.
static inline uv_stream_t *cuv_tcp_as_stream(uv_tcp_t *tcp) { return (uv_stream_t *)tcp; }
static inline uv_handle_t *cuv_tcp_as_handle(uv_tcp_t *tcp) { return (uv_handle_t *)tcp; }
static inline uv_handle_t *cuv_stream_as_handle(uv_stream_t *s) { return (uv_handle_t *)s; }
static inline uv_handle_t *cuv_timer_as_handle(uv_timer_t *t) { return (uv_handle_t *)t; }
static inline uv_handle_t *cuv_async_as_handle(uv_async_t *a) { return (uv_handle_t *)a; }
static inline uv_tcp_t *cuv_stream_as_tcp(uv_stream_t *s) { return (uv_tcp_t *)s; }

/// Ignore SIGPIPE once per process: a peer hanging up mid-write must not kill us.
static inline void cuv_ignore_sigpipe(void) { signal(SIGPIPE, SIG_IGN); }

/// The size of a sockaddr_storage, for allocating address buffers from Swift.
static inline int cuv_sockaddr_storage_size(void) { return (int)sizeof(struct sockaddr_storage); }
#endif
