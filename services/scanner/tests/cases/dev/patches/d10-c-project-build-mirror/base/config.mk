CC      ?= gcc
CFLAGS  ?= -O2 -Wall -Wextra
PKGS    := libcmocka-dev pkg-config
