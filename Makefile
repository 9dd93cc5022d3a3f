# The two commands of the README:
#   make run    set up, build, and scan the sample activation code
#   make test   set up, check the layout of the sources (make lint), run both test lanes, then the
#               sample programs in SampleCodes/, the README's library program and the docs
# CI (.ci/run) then runs `make fuzz-smoke deb-check`: the fuzz targets briefly and the Debian
# package (built, installed, used, removed). Each of the two is a whole build of its own (with
# sanitizers; release with the runtime linked in), which `make test` leaves out to stay within
# 15 minutes on 2 cores.
SWIFT ?= swift
ACTIVATE = .build/debug/activate

SAMPLES = sample-custom-provider sample-scan-to-configuration sample-custom-transformer sample-verify-activation-code sample-scan-and-check sample-secure-store sample-onboarding-flow sample-access-token sample-discovery-service

PREFIX ?= /usr/local

.PHONY: run test check lint format deb deb-check samples fuzz-smoke fuzz setup setup-test setup-bench build release install bench-decode bench-superset bench-one bench-speed bench-varied bench-large bench-serve bench-batch bench-sizes bench-consumer bench-discovery bench-store bench-token docs clean

run: setup
	$(SWIFT) build --product activate
	$(ACTIVATE) scan SampleCodes/oauth-activation.png

# Everything (libraries, tools, samples, tests) is built by one command in one mode, and run
# without building again: `swift test`, `swift run` and `swift build` each plan the build a little
# differently, and each would then recompile what another one compiled (a minute or more each time).
BUILD_ALL = $(SWIFT) build --build-tests

test: setup-test lint
	$(BUILD_ALL)
	$(SWIFT) test --skip-build
	scripts/unit-lane-check.sh
	$(MAKE) samples
	scripts/consumer-check.sh
	$(MAKE) docs

# The quick lane for day-to-day work: the unit targets (no process, network socket or server; see
# Package.swift), and the layout of the sources. `make test` runs the integration targets too.
UNIT_LANE = --skip 'IntegrationTests\.'
# `swift test` alone, which builds what it runs: run again and again on a warm tree it recompiles
# nothing, where `swift build --build-tests` recompiles a varying part of our targets on some runs.
check: setup lint
	$(SWIFT) test $(UNIT_LANE)

# The sources as .swift-format lays them out (`swift format` ships with the toolchain):
# `make lint` fails on any difference, `make format` rewrites them.
FORMATTED = Sources Tests SampleCodes Fuzz benchmarks Package.swift
lint:
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

format:
	$(SWIFT) format --in-place --recursive --parallel $(FORMATTED)

# DocC archives of the seven libraries (.build/plugins/Swift-DocC/outputs/), failing on any DocC
# warning, then the doc-comment coverage of their public API, which must be 100 %.
docs: setup
	ACTIVATE_DOCS=1 $(SWIFT) package --disable-sandbox generate-documentation --warnings-as-errors \
		--target ActivationConfiguration --target ActivationImaging --target ActivationSecureStore --target ActivationOnboarding --target ActivationDiscoveryProtocol --target ActivationDiscovery --target ActivationDiscoveryServer
	scripts/doc-coverage.py

samples:
	$(BUILD_ALL)
	@for sample in $(SAMPLES); do \
		echo "== $$sample"; $(SWIFT) run --skip-build --quiet $$sample || exit 1; \
	done

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

setup-bench:
	@scripts/setup.sh --bench

build: setup
	$(SWIFT) build

# The release build as the Debian package ships it (scripts/release-build.sh), in $(SHIPPED); the
# package, `make install` and the benchmarks share it.
SHIPPED = .build/shipped/release
RELEASE_BUILD = scripts/release-build.sh
release: setup
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null

# The Debian package, .build/deb/activate_<version>_<arch>.deb (scripts/make-deb.sh says what it holds).
deb:
	scripts/setup.sh --deb
	scripts/make-deb.sh

# The package built, checked by lintian, installed, used without the toolchain, removed (CI runs it
# after `make test`).
deb-check:
	scripts/deb-check.sh

# activate finds its zxing helper beside itself, so both go to the same folder.
install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(SHIPPED)/activate $(SHIPPED)/activate-zxing-helper $(DESTDIR)$(PREFIX)/bin/

# Decoders side by side on a corpus (CORPUS=../shared/corpus/public by default): decode counts per
# category and wall-time ratios; then the pipeline against a single zbar pass; then peak memory.
CORPUS ?= ../shared/corpus/public
bench-decode: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper decode-benchmark >/dev/null
	benchmarks/compare-decoders.py $(CORPUS)
	$(SHIPPED)/decode-benchmark $(CORPUS)
	benchmarks/memory-12mp.sh

# activate against zxing-cpp 3.1.1 under hyperfine: the whole corpus on one thread and on all
# cores, each category, the images without a code; then each one's ten slowest images.
bench-speed: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	benchmarks/decode-speed.py $(CORPUS) --slowest 10

# Varied copies of every category (benchmarks/varied-corpus.py: turned, scaled, darkened, noisy,
# JPEG): whether the speed lead holds on images the pipeline was not ordered on.
bench-varied: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	rm -rf .build/varied-corpus
	benchmarks/varied-corpus.py $(CORPUS) .build/varied-corpus
	benchmarks/decode-speed.py .build/varied-corpus --no-categories --runs 4

# The corpus's codes pasted small into 12-megapixel photos (benchmarks/large-photos.py), then the
# decoders side by side on them.
bench-large: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	rm -rf .build/large-photos
	"$$(benchmarks/compare-decoders.py --bench-python)" benchmarks/large-photos.py $(CORPUS) .build/large-photos
	benchmarks/compare-decoders.py .build/large-photos

# The superset property (benchmarks/superset.py): over the corpus, its QR stress variants, its linear
# codes turned by 90° and 270°, the varied copies and the large photos, every text zbarimg or
# ZXingReader reads alone is read by activate too; fails naming each loss.
bench-superset: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	benchmarks/superset.py $(CORPUS)

# One image per process (benchmarks/one-image.sh): the Debian package's activate against ZXingReader
# and zbarimg on the sample, the phone photo, a 1×1 image, a small image without a code and
# --version; the installed sizes.
bench-one: setup-bench
	scripts/setup.sh --deb
	benchmarks/one-image.sh

# generate --batch: 1000 signed AC1 codes, each read back, against qrencode; then the size of each kind of code.
bench-batch: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	benchmarks/batch-generate.sh 1000

bench-sizes: setup-bench
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	benchmarks/code-sizes.sh

bench-consumer: setup
	benchmarks/consumer-build.sh

# libFuzzer targets (Fuzz/): a few seconds each in `make fuzz-smoke` (CI); `make fuzz` runs each until
# 10 million executions or FUZZ_SECONDS (default one hour), release build.
FUZZ_SECONDS ?= 3600
fuzz-smoke:
	scripts/fuzz.sh smoke

fuzz: setup-test
	scripts/fuzz.sh long $(FUZZ_SECONDS)

# Unlocking the secure store against `age -d` (same file, same passcode), and peak memory.
bench-store: setup-bench setup-test
	benchmarks/store-unlock.sh

# `activate token` with a cached token against cat, gh auth token and age -d; a refresh against glewlwyd.
bench-token: setup-bench setup-test
	benchmarks/token.sh

# Load test of `activate serve` with wrk (30 s); prints requests/s and latency percentiles.
bench-serve: setup-bench
	benchmarks/serve-load.sh

# The discovery service's figures (issue 12): exactly-once codes on PostgreSQL (also with an instance
# killed) and SQLite, guessing limits across instances, wrk speed, slow clients.
bench-discovery: setup-bench setup-test
	$(RELEASE_BUILD) activate activate-zxing-helper >/dev/null
	benchmarks/discovery-service.py all

clean:
	rm -rf .build .build-fuzz
