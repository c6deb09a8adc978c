/// Namespace of the Wire module (see docs/ARCHITECTURE.md).
public enum WireModule {}
