/// Namespace of the Artifacts module (see docs/ARCHITECTURE.md).
public enum ArtifactsModule {}
