/// Namespace of the UVTransport module (see docs/ARCHITECTURE.md).
public enum UVTransportModule {}
