// libuv shim. Provider: apt libuv1-dev. Only the UVTransport module imports this.
#ifndef CLIBUV_SHIM_H
#define CLIBUV_SHIM_H
#include <uv.h>
#include <signal.h>
#include <string.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <errno.h>

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
static inline uv_handle_t *cuv_prepare_as_handle(uv_prepare_t *p) { return (uv_handle_t *)p; }

/// libuv error constants as plain ints (the enum spelling differs between libuv versions).
static inline int cuv_eof(void) { return UV_EOF; }
static inline int cuv_eagain(void) { return UV_EAGAIN; }
static inline int cuv_ecanceled(void) { return UV_ECANCELED; }
static inline int cuv_ebadf(void) { return UV_EBADF; }

/// Address family of a socket address.
static inline int cuv_sockaddr_family(const struct sockaddr_storage *s) { return s->ss_family; }
static inline int cuv_af_inet(void) { return AF_INET; }
static inline int cuv_af_inet6(void) { return AF_INET6; }
static inline const struct sockaddr *cuv_storage_as_sockaddr(const struct sockaddr_storage *s) {
    return (const struct sockaddr *)s;
}
static inline struct sockaddr *cuv_storage_as_mutable_sockaddr(struct sockaddr_storage *s) {
    return (struct sockaddr *)s;
}
/// The port of an IPv4 or IPv6 address, in host order.
static inline int cuv_sockaddr_port(const struct sockaddr_storage *s) {
    if (s->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)s)->sin_port);
    if (s->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)s)->sin6_port);
    return -1;
}
/// The numeric host of an IPv4 or IPv6 address into `out`; 0 on success.
static inline int cuv_sockaddr_name(const struct sockaddr_storage *s, char *out, size_t size) {
    if (s->ss_family == AF_INET) return uv_ip4_name((const struct sockaddr_in *)s, out, size);
    if (s->ss_family == AF_INET6) return uv_ip6_name((const struct sockaddr_in6 *)s, out, size);
    return UV_EAFNOSUPPORT;
}
/// A non-blocking recv on a libuv stream's descriptor: bytes read, 0 at EOF, -EAGAIN when nothing is
/// there, or another negative errno. Used to read a large frame body straight into its final array.
static inline long cuv_recv_nonblocking(uv_stream_t *stream, void *buffer, size_t length) {
    uv_os_fd_t fd;
    if (uv_fileno((uv_handle_t *)stream, &fd) != 0) return -EBADF;
    for (;;) {
        ssize_t n = recv(fd, buffer, length, MSG_DONTWAIT);
        if (n >= 0) return (long)n;
        if (errno == EINTR) continue;
        if (errno == EWOULDBLOCK) return -EAGAIN;
        return -errno;
    }
}
static inline long cuv_eagain_errno(void) { return -EAGAIN; }

/// Parses a numeric IPv4 or IPv6 host into `out`; 0 on success.
static inline int cuv_parse_address(const char *host, int port, struct sockaddr_storage *out) {
    memset(out, 0, sizeof(*out));
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)out) == 0) return 0;
    return uv_ip6_addr(host, port, (struct sockaddr_in6 *)out);
}
#endif
