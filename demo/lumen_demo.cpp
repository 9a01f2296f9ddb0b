// The shipped demo: a small program with a few clearly separated hot spots
// on several threads, so its profile reads at a glance.
//   render_mandelbrot   ~ compute-bound, on two worker threads
//   sort_records        ~ std::sort on the main thread
//   checksum_text       ~ a byte loop in a helper called from two places
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace demo {

__attribute__((noinline)) int render_mandelbrot(int rows, int columns, int first_row, int step) {
  int inside = 0;
  for (int y = first_row; y < rows; y += step)
    for (int x = 0; x < columns; ++x) {
      const std::complex<double> c(-2.0 + 3.0 * x / columns, -1.2 + 2.4 * y / rows);
      std::complex<double> z = 0;
      int n = 0;
      while (n < 400 && std::norm(z) < 4.0) z = z * z + c, ++n;
      inside += n == 400;
    }
  return inside;
}

__attribute__((noinline)) uint64_t checksum_text(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (const unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

__attribute__((noinline)) uint64_t sort_records(size_t count) {
  std::mt19937_64 random(42);
  std::vector<uint64_t> records(count);
  for (auto& r : records) r = random();
  std::sort(records.begin(), records.end());
  return records[count / 2];
}

__attribute__((noinline)) uint64_t build_report(int lines) {
  std::string report;
  for (int i = 0; i < lines; ++i) report += "line " + std::to_string(i) + " of the demo report\n";
  return checksum_text(report) ^ checksum_text(report.substr(report.size() / 2));
}

}  // namespace demo

int main() {
  int inside_a = 0, inside_b = 0;
  std::thread worker_a([&] { inside_a = demo::render_mandelbrot(1200, 1600, 0, 2); });
  std::thread worker_b([&] { inside_b = demo::render_mandelbrot(1200, 1600, 1, 2); });
  const uint64_t median = demo::sort_records(3'000'000);
  const uint64_t report = demo::build_report(600'000);
  worker_a.join();
  worker_b.join();
  std::printf("mandelbrot points inside: %d, median record: %llu, report checksum: %llx\n", inside_a + inside_b,
              static_cast<unsigned long long>(median), static_cast<unsigned long long>(report));
  return 0;
}
