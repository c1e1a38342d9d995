#ifndef IMAGEPIPE_CIMAGEQUANT_SHIM_H
#define IMAGEPIPE_CIMAGEQUANT_SHIM_H
#include <stdio.h>
#include <libimagequant.h>
#endif
