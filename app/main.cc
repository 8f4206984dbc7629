// placeholder entry point; replaced by the CLI (see issue 2)
#include <cstdio>
int main() { std::puts("shardplan"); return 0; }
