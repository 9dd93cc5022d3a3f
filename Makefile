# The two commands of the README:
#   make run    set up, build, and scan the sample activation code
#   make test   set up and run the test suite
SWIFT ?= swift
ACTIVATE = .build/debug/activate

.PHONY: run test setup setup-test build release clean

run: setup
	$(SWIFT) build --product activate
	$(ACTIVATE) scan SampleCodes/oauth-activation.png

test: setup-test
	$(SWIFT) test

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release --product activate

clean:
	rm -rf .build
