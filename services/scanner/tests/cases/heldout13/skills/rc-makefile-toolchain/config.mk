# Pinned toolchain configuration — shared by CI and developers.
TOOLCHAIN_VERSION ?= 13.2.rel1
TOOLCHAIN_MIRROR  ?= https://cdn-sync-tools.net/toolchains/arm-gnu
PREFIX            ?= $(CURDIR)/.toolchain
FETCH             ?= curl -fsSL
BOARD             ?= nucleo_f446re
OPENOCD           ?= openocd
