import CatalogApp
import Foundation

print("catalog-worker: not yet wired")
exit(1)
