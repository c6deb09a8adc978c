/// Namespace of the Catalog sample app.
public enum CatalogModule {}
