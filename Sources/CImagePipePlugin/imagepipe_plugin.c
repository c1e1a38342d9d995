#include "imagepipe_plugin.h"
