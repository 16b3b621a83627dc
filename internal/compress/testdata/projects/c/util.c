#include "util.h"

int scale(int a, int b) {
    int unused = a;
    return a * b
}

int offset(int a) {
    return a + missing;
}
