/* libjxl (Debian libjxl-dev) for JPEG XL both ways, with its thread pool (libjxl_threads). */
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <jxl/thread_parallel_runner.h>
