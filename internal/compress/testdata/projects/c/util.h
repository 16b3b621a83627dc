int scale(int a, int b);
