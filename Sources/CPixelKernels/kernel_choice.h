#ifndef IMAGEPIPE_KERNEL_CHOICE_H
#define IMAGEPIPE_KERNEL_CHOICE_H

#include <stdatomic.h>

/* A kernel with versions for several CPUs, and the best one this CPU has, found on first use
 * (racing first calls find the same one). */
struct kernel_choice {
    const char *const *preferred;        /* best first, the last one there everywhere */
    void *(*named)(const char *version); /* the version, or NULL where this CPU or build has none */
    void *_Atomic function;
    const char *_Atomic version;
};

static inline void *kernel_chosen(struct kernel_choice *choice) {
    void *function = atomic_load_explicit(&choice->function, memory_order_acquire);
    for (unsigned index = 0; !function; index++) {
        function = choice->named(choice->preferred[index]);
        if (function) {
            atomic_store_explicit(&choice->version, choice->preferred[index], memory_order_relaxed);
            atomic_store_explicit(&choice->function, function, memory_order_release);
        }
    }
    return function;
}

static inline const char *kernel_chosen_version(struct kernel_choice *choice) {
    kernel_chosen(choice);
    return atomic_load_explicit(&choice->version, memory_order_relaxed);
}

#endif
