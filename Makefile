# ImagePipe — the two commands the README gives: `make demo` and `make test`.
# Both install the Debian packages they need when missing (apt-get as root, else sudo,
# else they say what to install).

SWIFT ?= swift
PACKAGES := pkg-config libgdk-pixbuf-2.0-dev libglib2.0-dev libjpeg-dev libdeflate-dev zlib1g-dev libsoup-3.0-dev \
  libpango1.0-dev libcairo2-dev fonts-dejavu-core \
  liblcms2-dev libexif-dev libwebp-dev libavif-dev libheif-dev libimagequant-dev libcgif-dev libgif-dev libspng-dev libtiff-dev libjxl-dev \
  libarchive-dev
# libjxl-dev: JPEG XL read and written through libjxl (0.7 on Debian 12, the version libvips 8.14 uses).
# libarchive-dev: `save … container=zip` writes a tile pyramid into one ZIP as the tiles are made
# (a streaming writer, zip64 for large pyramids; libvips' dzsave does the same through libgsf).
# libtiff-dev: TIFF read and written through libtiff directly (gdk-pixbuf's loader gave every TIFF alpha and cut 16 bits to 8).
# libpango1.0-dev and libcairo2-dev: the text stage lays text out with Pango (the GNOME text
# stack gdk-pixbuf belongs to; HarfBuzz shapes any script) and draws it with PangoCairo.
# fonts-dejavu-core: a known font for its tests and samples, which name DejaVu Sans.
# The tests also look at --trace pages in a real headless browser, and drive `imagepipe edit`
# in it with Selenium (Tests/Browser/edit_test.py, run by EditBrowserTests).
# The color tests compare with Little CMS's own transicc on Debian's ICC profiles (Display P3 is
# built by lcms2 itself); Pillow writes the CMYK JPEG and grey PNG they read. ExifTool reads back
# what `save keep=…` wrote (a reader that shares no code with ours) and writes the test's EXIF.
TEST_PACKAGES := patchelf groff-base chromium python3-selenium chromium-driver liblcms2-utils icc-profiles-free colord-data libgs-common python3-pil libimage-exiftool-perl
# `imagepipe compare` is checked against the benchmarks' NumPy PSNR and SSIM (Benchmarks/quality.py).
TEST_PACKAGES += python3-numpy
# Lossless JPEG turns and crops are checked against jpegtran's (libjpeg-turbo-progs).
TEST_PACKAGES += libjpeg-turbo-progs
# JPEG XL is checked against libjxl's own test files (libjxl-testdata) and its own tools'
# decodes and encodes (cjxl, djxl in libjxl-tools), and libvips' (libvips-tools) where djxl
# 0.7 writes no PNG or a wrong one: JXLConformanceTests.
# Tile pyramids are compared tile by tile with libvips' `vips dzsave` on the same settings
# (PyramidTests), the tool whose layouts they follow.
TEST_PACKAGES += libjxl-testdata libjxl-tools libvips-tools
# strace counts how often a run opens its input (OneOpenTests: once).
TEST_PACKAGES += strace
# openssl makes the certificates of the HTTPS origins in serve's tests (Tests/Serve/serve_test.py).
TEST_PACKAGES += openssl
# Many machines: a real single-node Slurm cluster runs the sample array job (SlurmClusterTests,
# Tests/Cluster/slurm-cluster.sh), and GNU parallel runs the parallel recipe. The Kubernetes
# Indexed Job is read with PyYAML (python3-yaml) and its command run for every index. kubectl
# (Debian kubernetes-client) is used where it is installed; it is not installed here, since some
# machines have another package's kubectl that it would collide with.
TEST_PACKAGES += slurmctld slurmd slurm-client munge parallel python3-yaml
# The completions are tried in real shells (InstallationTests).
TEST_PACKAGES += zsh fish
# pip installs the official IIIF Image API validator (PyPI iiif-validator, not in Debian) that
# IIIFValidatorTests runs against `serve --iiif`; python-magic, which it imports, needs libmagic1.
TEST_PACKAGES += python3-pip libmagic1
IIIF_VALIDATOR := .build/iiif-validator
DEMO_OUT := out/demo
# Debug builds are optimized from here: the pixel loops (SIMD, generic arithmetic) run some 20×
# slower without -O, which made the tests and samples crawl; -Xcc -O2 does the same for the C
# targets (the resampler's kernels among them). Package.swift carries no unsafe flags, so that
# a tagged version can be a dependency (VersionDependencyTests).
OPTIMIZED := -Xswiftc -O -Xcc -O2

.PHONY: iiif-validator deps test-deps install-packages build release test samples demo docc clean goldens bench bench-serve bench-iiif bench-shards fuzz sanitize install uninstall deb

deps:
	@$(MAKE) --no-print-directory install-packages WANTED="$(PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory install-packages WANTED="$(PACKAGES) $(TEST_PACKAGES)"

install-packages:
	@missing=""; \
	for package in $(WANTED); do \
	  dpkg-query -W -f='$${Status}\n' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  elif command -v sudo >/dev/null 2>&1; then sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "Please install these Debian packages, then run make again:$$missing" >&2; exit 1; fi; \
	fi

build: deps
	$(SWIFT) build $(OPTIMIZED)

release: deps
	$(SWIFT) build -c release

# The sample packages are built first: the main tests run their products (the sepia plugin
# loaded at run time, my-imagepipe, embed-demo).
test: test-deps samples iiif-validator
	$(SWIFT) build --build-tests $(OPTIMIZED)
	$(SWIFT) test $(OPTIMIZED)

# The validator and what it imports (Pillow, bottle, python-magic, lxml) in a folder of its own,
# pinned, outside Debian's Python.
iiif-validator: test-deps
	@test -f $(IIIF_VALIDATOR)/iiif_validator/validator.py \
	  || /usr/bin/python3 -m pip install --quiet --target $(IIIF_VALIDATOR) iiif-validator==1.0.5

# SwiftPM keeps a sample package's build plan while its own manifest is unchanged, so files new
# in the framework (a path dependency) went unseen ("cannot find … in scope"): drop the plan,
# not the objects, before building.
samples: deps
	rm -f Samples/*/.build/debug.yaml Samples/*/.build/debug/description.json
	cd Samples/CustomStage && $(SWIFT) build $(OPTIMIZED) && $(SWIFT) test $(OPTIMIZED)
	cd Samples/EmbedDemo && $(SWIFT) build $(OPTIMIZED)

demo: build
	@Samples/run-samples.sh "$$($(SWIFT) build --show-bin-path)/imagepipe" $(DEMO_OUT)

# The API reference with the articles of Sources/ImagePipe/ImagePipe.docc, as a static site in
# out/docc (open out/docc/documentation/imagepipe/index.html through a web server), made by the
# toolchain's own docc from the symbol graphs SwiftPM dumps: ImagePipe's and the core's, which
# ImagePipe re-exports. The articles' code is compiled by VersionDependencyTests.
docc: deps
	@# (It fails for the test modules when the tests are not built; ImagePipe's graphs are made first,
	@# and the copy below fails if they are missing.)
	-$(SWIFT) package $(OPTIMIZED) dump-symbol-graph >/dev/null 2>&1
	rm -rf .build/docc-symbols out/docc && mkdir -p .build/docc-symbols out
	cd "$$($(SWIFT) build $(OPTIMIZED) --show-bin-path)"/../symbolgraph && \
	  cp ImagePipe.symbols.json ImagePipe@*.symbols.json ImagePipeCore*.symbols.json $(CURDIR)/.build/docc-symbols/
	docc convert Sources/ImagePipe/ImagePipe.docc --additional-symbol-graph-dir .build/docc-symbols \
	  --fallback-display-name ImagePipe --fallback-bundle-identifier org.imagepipe.ImagePipe \
	  --transform-for-static-hosting --warnings-as-errors --output-path out/docc

# make install [PREFIX=/usr/local] [DESTDIR=…]: the command with the Swift runtime it links, the
# manual page and bash/zsh/fish completions (both made by the command itself), and the plugin
# directory it searches by default, PREFIX/lib/imagepipe/plugins. make uninstall removes them.
PREFIX ?= /usr/local
INSTALLED := bin/imagepipe share/man/man1/imagepipe.1.gz share/bash-completion/completions/imagepipe \
  share/zsh/site-functions/_imagepipe share/fish/vendor_completions.d/imagepipe.fish

install: release
	@$(MAKE) --no-print-directory install-packages WANTED="patchelf"
	.ci/install-tree.sh "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" "$(DESTDIR)" "$(PREFIX)"

uninstall:
	cd "$(DESTDIR)$(PREFIX)" && rm -f $(INSTALLED) && rm -rf lib/imagepipe/swift
	-rmdir "$(DESTDIR)$(PREFIX)/lib/imagepipe/plugins" "$(DESTDIR)$(PREFIX)/lib/imagepipe" 2>/dev/null

# make deb: imagepipe_VERSION_ARCH.deb in out/, for `apt install ./out/imagepipe_*.deb`.
deb: release
	@$(MAKE) --no-print-directory install-packages WANTED="patchelf"
	.ci/build-deb.sh "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" out

clean:
	rm -rf .build out Samples/CustomStage/.build Samples/EmbedDemo/.build

# ImagePipe against the C floor, libvips, Pillow and ImageMagick (see Benchmarks/bench.py).
bench: deps
	@$(MAKE) --no-print-directory install-packages WANTED="imagemagick libvips-tools libjpeg-turbo-progs gcc python3-pip time"
	@python3 -c "import PIL" 2>/dev/null || pip install --quiet pillow
	@python3 -c "import numpy" 2>/dev/null || pip install --quiet numpy
	@python3 -c "import scipy" 2>/dev/null || pip install --quiet scipy || echo "no scipy: Benchmarks/quality.py uses its numpy-only path"
	$(SWIFT) build -c release
	python3 Benchmarks/bench.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"
	python3 Benchmarks/save_defaults.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" Benchmarks/work/photos/batch/0*.jpg
	python3 Benchmarks/save_defaults.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" --format webp Benchmarks/work/photos/batch/1[2-9]*.jpg Benchmarks/work/photos/batch/2[0-2]*.jpg
	python3 Benchmarks/smartcrop.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" Benchmarks/work/root
	python3 Benchmarks/animation.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"
	@/usr/bin/python3 -c "import sys; sys.path.insert(0, 'Benchmarks/work/pylib'); import pyvips" 2>/dev/null \
	  || /usr/bin/python3 -m pip install --quiet --target Benchmarks/work/pylib pyvips || echo "no pyvips: codec_speed.py leaves out libvips' Speed and Memory task"
	/usr/bin/python3 Benchmarks/codec_speed.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"
	/usr/bin/python3 Benchmarks/engine.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"

# The image service under load (Benchmarks/serve.py): imagepipe serve against thumbor (from
# PyPI) and against imagepipe run as a batch, with wrk.
bench-serve: deps
	@$(MAKE) --no-print-directory install-packages WANTED="wrk libvips-tools libjpeg-turbo-progs python3-pip python3-numpy python3-pil"
	$(SWIFT) build -c release
	/usr/bin/python3 Benchmarks/serve.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"

# IIIF tiles of a 331 MP pyramid (Benchmarks/iiif_tiles.py): imagepipe serve --iiif against
# IIPImage (iipsrv behind lighttpd's FastCGI), the same tile requests, with wrk.
bench-iiif: deps
	@$(MAKE) --no-print-directory install-packages WANTED="wrk libvips-tools iipimage-server lighttpd python3-numpy"
	$(SWIFT) build -c release
	/usr/bin/python3 Benchmarks/iiif_tiles.py "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"

# Sharding's cost (Benchmarks/shards.sh): one process against 4 Slurm shards and 4 GNU parallel
# shards on the same cores, over 2,000 small photos; a shard's memory for a 10,000- and a
# 1,000,000-line list.
bench-shards: deps
	@$(MAKE) --no-print-directory install-packages WANTED="slurmctld slurmd slurm-client munge parallel time bc"
	$(SWIFT) build -c release --product imagepipe
	Benchmarks/shards.sh "$$($(SWIFT) build -c release --show-bin-path)/imagepipe"

# Six libFuzzer targets (+ AddressSanitizer), FUZZ_SECONDS each: the pipeline language, header
# reading + decoding of the allowed formats and their animation frames, ledgers read by
# `imagepipe report`, the lossless JPEG transforms, what `imagepipe serve` reads from a
# client (the request head, the address and its signature, Accept, If-None-Match, Range), and
# the JSON a plugin describes itself with (`Registry.loadPlugin`).
# Crashes land in Tests/Fuzz/ and, once fixed, belong in Tests/Fuzz/regressions/ (language),
# Tests/Fuzz/decode-regressions/ (pictures), Tests/Fuzz/ledger-regressions/ (ledgers),
# Tests/Fuzz/lossless-regressions/ (JPEGs), Tests/Fuzz/http-regressions/ (request heads) or
# Tests/Fuzz/schema-regressions/ (plugin descriptions), run
# by make test. The decoder's seed corpus is made by its test from Samples/images and its
# regressions; the other fuzzers' seeds are their regressions (the ledger's: a first line naming
# the file, then its lines). Tests/Fuzz/make-seeds.py wrote the hand-made ones.
# (SwiftPM's --sanitize=fuzzer alone does not instrument Swift code for coverage: hence -Xswiftc.)
FUZZ_SECONDS ?= 600
FUZZ_BUILD = $(SWIFT) build --sanitize=fuzzer --sanitize=address --build-path .build/fuzz \
	  -Xswiftc -DFUZZING -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
FUZZ_RUN = SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0
fuzz: deps
	$(FUZZ_BUILD) --product imagepipe-fuzz
	$(FUZZ_BUILD) --product imagepipe-fuzz-decode
	$(FUZZ_BUILD) --product imagepipe-fuzz-ledger
	$(FUZZ_BUILD) --product imagepipe-fuzz-lossless
	$(FUZZ_BUILD) --product imagepipe-fuzz-http
	$(FUZZ_BUILD) --product imagepipe-fuzz-schema
	mkdir -p .build/fuzz/corpus .build/fuzz/decode-corpus .build/fuzz/ledger-corpus .build/fuzz/lossless-corpus .build/fuzz/http-corpus .build/fuzz/schema-corpus Tests/Fuzz
	cp Samples/*.pipe .build/fuzz/corpus/
	-cp Tests/Fuzz/regressions/* .build/fuzz/corpus/ 2>/dev/null
	-cp Tests/Fuzz/decode-regressions/* .build/fuzz/decode-corpus/ 2>/dev/null
	-cp Tests/Fuzz/ledger-regressions/* .build/fuzz/ledger-corpus/ 2>/dev/null
	-cp Tests/Fuzz/lossless-regressions/* .build/fuzz/lossless-corpus/ 2>/dev/null
	-cp Tests/Fuzz/http-regressions/* .build/fuzz/http-corpus/ 2>/dev/null
	-cp Tests/Fuzz/schema-regressions/* .build/fuzz/schema-corpus/ 2>/dev/null
	IMAGEPIPE_FUZZ_CORPUS=$(CURDIR)/.build/fuzz/decode-corpus $(SWIFT) test $(OPTIMIZED) --filter DecodeFuzzTests
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz \
	  -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=Tests/Fuzz/ .build/fuzz/corpus
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz-decode \
	  -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=20 -artifact_prefix=Tests/Fuzz/ .build/fuzz/decode-corpus
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz-ledger \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -rss_limit_mb=1024 -timeout=20 -artifact_prefix=Tests/Fuzz/ .build/fuzz/ledger-corpus
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz-lossless \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 -timeout=20 -artifact_prefix=Tests/Fuzz/ .build/fuzz/lossless-corpus
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz-http \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -rss_limit_mb=1024 -timeout=20 -artifact_prefix=Tests/Fuzz/ .build/fuzz/http-corpus
	$(FUZZ_RUN) .build/fuzz/debug/imagepipe-fuzz-schema \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -rss_limit_mb=1024 -timeout=20 -artifact_prefix=Tests/Fuzz/ .build/fuzz/schema-corpus

# Every test under ThreadSanitizer, then leaks (LeakSanitizer) and peak memory of big batches.
sanitize: test-deps samples
	@$(MAKE) --no-print-directory install-packages WANTED="time"
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan $(OPTIMIZED)
	@# everyInputIntoEveryOutputStreams (9000×700 through every codec pair) passes its 10-minute
	@# limit under ThreadSanitizer's slowdown; the same streamed run is covered by the rest.
	$(SWIFT) test --sanitize=thread --build-path .build/tsan $(OPTIMIZED) --skip everyInputIntoEveryOutputStreams
	$(SWIFT) build --product imagepipe --sanitize=address --build-path .build/asan $(OPTIMIZED)
	$(SWIFT) build -c release
	Tests/Sanitize/memory-check.sh "$$($(SWIFT) build -c release --show-bin-path)/imagepipe" .build/asan/debug/imagepipe

# Re-record Samples/expected/ from the current code. Look at every picture before committing.
goldens: deps
	IMAGEPIPE_RECORD_GOLDENS=1 $(SWIFT) test $(OPTIMIZED) --filter SampleTests
