/// Namespace of the Coordinator module (see docs/ARCHITECTURE.md).
public enum CoordinatorModule {}
