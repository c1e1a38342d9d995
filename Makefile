# ImagePipe — the two commands the README gives: `make demo` and `make test`.
# Both install the Debian packages they need when missing (apt-get as root, else sudo,
# else they say what to install).

SWIFT ?= swift
PACKAGES := pkg-config libgdk-pixbuf-2.0-dev libglib2.0-dev libdeflate-dev webp-pixbuf-loader
# The tests also look at --trace pages in a real headless browser.
TEST_PACKAGES := chromium
DEMO_OUT := out/demo

.PHONY: deps test-deps install-packages build release test samples demo clean goldens

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
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# The sample packages are built first: the main tests run their products (the sepia plugin
# loaded at run time, my-imagepipe, embed-demo).
test: test-deps samples
	$(SWIFT) build --build-tests
	$(SWIFT) test

samples: deps
	cd Samples/CustomStage && $(SWIFT) build && $(SWIFT) test
	cd Samples/EmbedDemo && $(SWIFT) build

demo: build
	@Samples/run-samples.sh "$$($(SWIFT) build --show-bin-path)/imagepipe" $(DEMO_OUT)

clean:
	rm -rf .build out Samples/CustomStage/.build Samples/EmbedDemo/.build

# Re-record Samples/expected/ from the current code. Look at every picture before committing.
goldens: deps
	IMAGEPIPE_RECORD_GOLDENS=1 $(SWIFT) test --filter SampleTests
