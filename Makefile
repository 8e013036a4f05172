# Developer shortcuts.  The two commands users need are in README.md:
#   tests/run.sh (all tests) and demo/run.sh (build, boot, show).
BUILD := $(CURDIR)/build

.PHONY: all tree kernel deb kernel-deb stock-kernel series checkpatch utility utility-deb test test-full demo export clean

all: kernel utility

# The kernel git tree: Debian's linux-source-6.12 + series/ (one commit a patch).
tree:
	series/make-tree.sh $(BUILD)/src

kernel: tree
	tests/lib/build-kernel.sh $(BUILD)/src $(BUILD)/obj-x86_64 tests/config/x86_64.config

# Debian packages of the kernel with the series (bindeb-pkg: linux-image,
# linux-headers, linux-libc-dev) in build/deb, with the test configuration;
# README.md says how to build them with Debian's own configuration.
deb: kernel
	tests/lib/kernel-deb.sh $(BUILD)/src $(BUILD)/obj-x86_64 $(BUILD)/deb

kernel-deb: deb

stock-kernel:
	series/make-tree.sh $(BUILD)/stock-src --stock
	tests/lib/build-kernel.sh $(BUILD)/stock-src $(BUILD)/obj-stock tests/config/x86_64.config

# git format-patch output in build/series, checked with checkpatch --strict.
series: tree
	tests/lib/checkpatch-series.sh $(BUILD)/src $(BUILD)/series

checkpatch: series

utility:
	$(MAKE) -C tools/exec_folio_ctl

# The utility's Debian source and binary packages in build/deb
# (dpkg-buildpackage -us -uc, then lintian); see packaging/build-deb.sh.
utility-deb:
	packaging/build-deb.sh $(BUILD)/deb

test:
	tests/run.sh

test-full:
	tests/run.sh --with-stock

demo:
	demo/run.sh

# After committing in build/src: write the commits back into series/.
export:
	series/export.sh $(BUILD)/src

clean:
	rm -rf $(BUILD)
	$(MAKE) -C tools/exec_folio_ctl clean
