"""Why `blur` has no box-blur shortcut: the worst-case error of the best cascades of 3 to 6
integer-width box blurs against the Gaussian they stand for, per axis, on 8-bit pictures.

The worst case of a kernel difference d on values 0…255 is 255 · ½‖d‖₁ levels (255 where d > 0,
0 elsewhere). A shortcut would have to stay within ±1 level; none does.

usage: python3 Benchmarks/box_blur_error.py"""
import numpy as np

for sigma in (3, 10, 30):
    radius = int(np.ceil(4 * sigma))
    x = np.arange(-2 * radius, 2 * radius + 1)
    gauss = np.exp(-x ** 2 / (2 * sigma ** 2))
    gauss /= gauss.sum()
    for passes in (3, 4, 5, 6):
        # The box width whose cascade has the Gaussian's variance, made odd to stay centred.
        width = int(round(np.sqrt(12 * sigma ** 2 / passes + 1)))
        width += width % 2 == 0
        kernel = np.array([1.0])
        for _ in range(passes):
            kernel = np.convolve(kernel, np.ones(width) / width)
        centre, half = len(gauss) // 2, len(kernel) // 2
        cascade = np.zeros_like(gauss)
        cascade[centre - half:centre + half + 1] = kernel
        print(f"sigma {sigma:>2}: {passes} boxes of {width:>2} px: worst case {np.abs(cascade - gauss).sum() / 2 * 255:5.2f} levels")
