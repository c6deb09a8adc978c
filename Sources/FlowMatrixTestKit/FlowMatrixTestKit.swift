/// Namespace of the FlowMatrixTestKit module (see docs/ARCHITECTURE.md).
public enum FlowMatrixTestKitModule {}
