"""A script that fails the way a scratch file does: a missing key, deep in a call."""
import sys


def lookup(config, name):
    return config["services"][name]


def main(argv):
    config = {"services": {"api": {"port": 8080}}}
    for name in argv or ["api", "worker"]:
        print(name, lookup(config, name)["port"])


if __name__ == "__main__":
    main(sys.argv[1:])
