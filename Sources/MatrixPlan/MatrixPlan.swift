/// Namespace of the MatrixPlan module: matrix files, typed axes, include/exclude/constraints,
/// t-wise covering arrays, job identity, plan listing and `explain` (see docs/MATRIX.md).
public enum MatrixPlanModule {}
