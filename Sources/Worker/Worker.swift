/// Namespace of the Worker module (see docs/ARCHITECTURE.md).
public enum WorkerModule {}
