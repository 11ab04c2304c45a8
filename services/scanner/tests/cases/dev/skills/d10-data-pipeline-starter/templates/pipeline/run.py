import argparse
from . import extract, transform, load


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--since", required=True)
    a = ap.parse_args()
    load.write(transform.clean(extract.fetch(a.since)))


if __name__ == "__main__":
    main()
