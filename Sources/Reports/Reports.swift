/// Namespace of the Reports module (see docs/ARCHITECTURE.md).
public enum ReportsModule {}
