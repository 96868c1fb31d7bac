// The ablate command line (placeholder until bench/ lands).
int main() { return 0; }
