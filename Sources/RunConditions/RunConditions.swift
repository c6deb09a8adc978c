/// Namespace of the RunConditions module (see docs/ARCHITECTURE.md).
public enum RunConditionsModule {}
