/// Namespace of the Journal module (see docs/ARCHITECTURE.md).
public enum JournalModule {}
