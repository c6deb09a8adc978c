// cairo shim. Provider: apt libcairo2-dev. Only the Wireframe module imports this.
#ifndef CCAIRO_SHIM_H
#define CCAIRO_SHIM_H
#include <cairo/cairo.h>
#endif
