/// Namespace of the Wireframe module (see docs/ARCHITECTURE.md).
public enum WireframeModule {}
