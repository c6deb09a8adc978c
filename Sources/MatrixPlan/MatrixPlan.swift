/// Namespace of the MatrixPlan module (see docs/ARCHITECTURE.md).
public enum MatrixPlanModule {}
