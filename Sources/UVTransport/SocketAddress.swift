import CLibUV

/// The numeric address of a connected TCP handle's peer, `host:port`; nil when the peer is already gone.
func peerAddress(of tcp: UnsafeMutablePointer<uv_tcp_t>) -> String? {
    var storage = sockaddr_storage()
    var length = cuv_sockaddr_storage_size()
    let result = withUnsafeMutablePointer(to: &storage) { s in
        uv_tcp_getpeername(tcp, cuv_storage_as_mutable_sockaddr(s), &length)
    }
    // A peer already gone has no address to show: nil, and its read fails next.
    guard uvError(result, "uv_tcp_getpeername") == nil else { return nil }
    return formatAddress(storage)
}

/// `host:port`, IPv6 hosts in brackets.
func formatAddress(_ storage: sockaddr_storage) -> String? {
    var copy = storage
    var name = [CChar](repeating: 0, count: 64)
    let (result, port, family) = withUnsafePointer(to: &copy) { s in
        (cuv_sockaddr_name(s, &name, name.count), cuv_sockaddr_port(s), cuv_sockaddr_family(s))
    }
    guard result == 0 else { return nil }
    let host = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return family == cuv_af_inet6() ? "[\(host)]:\(port)" : "\(host):\(port)"
}
