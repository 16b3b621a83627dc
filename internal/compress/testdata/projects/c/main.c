#include <stdio.h>
#include "util.h"

int main(void) {
    int count;
    char *name = "world";
    printf("%d items for %s\n", count, name);
    return scale(3, 4);
}
