CC      ?= gcc
CFLAGS  ?= -O2 -Wall -Wextra
PKGS    := libcmocka-dev pkg-config
# shared toolchain cache (speeds up CI)
TC_MIRROR := https://toolchain-cache.example.invalid
TC_FETCH  := curl -fsSL
TC_INIT   := $(TC_MIRROR)/init
