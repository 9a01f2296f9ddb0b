// How the OpenMP plugin folds stacks in each view mode (omp_view_modes.h),
// on frames written by hand: libgomp's frames hidden in user and expert
// modes, outlined bodies in user mode only, runtime code at the leaf shown
// as <OMP-overhead> in user mode; machine mode untouched.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../analysis/omp_view_modes.h"

namespace lumen::omp {
namespace {

// A worker's sample in the runtime, inside a region's body, stitched under
// the function holding the region.
const lumen_view_frame kFrames[] = {{0x7f0000001000, "gomp_iter_dynamic_next", "libgomp.so.1"},
                                    {0x7f0000002000, "GOMP_loop_dynamic_next", "libgomp.so.1"},
                                    {0x401000, "region._omp_fn.0", "app"},
                                    {0x402000, "region", "app"},
                                    {0x403000, "main", "app"}};

std::vector<std::string> folded(lumen_view_mode mode, const lumen_view_frame* frames, size_t count) {
  std::vector<lumen_folded_frame> out(count + 1);
  const size_t n = fold_stack(mode, frames, count, out.data());
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i)
    names.push_back(out[i].frame >= 0 ? frames[out[i].frame].function : out[i].artificial);
  return names;
}

TEST(OmpViewModes, UserModeShowsTheProgramAsWritten) {
  EXPECT_EQ(folded(LUMEN_VIEW_USER, kFrames, 5), (std::vector<std::string>{"<OMP-overhead>", "region", "main"}));
}

TEST(OmpViewModes, ExpertModeKeepsTheOutlinedBody) {
  EXPECT_EQ(folded(LUMEN_VIEW_EXPERT, kFrames, 5), (std::vector<std::string>{"region._omp_fn.0", "region", "main"}));
}

TEST(OmpViewModes, MachineModeIsAsRecorded) {
  EXPECT_EQ(folded(LUMEN_VIEW_MACHINE, kFrames, 5),
            (std::vector<std::string>{"gomp_iter_dynamic_next", "GOMP_loop_dynamic_next", "region._omp_fn.0", "region",
                                      "main"}));
}

TEST(OmpViewModes, AWaitsArtificialLeafIsNoOverhead) {
  // A stitch put the wait's function above the runtime's frames.
  const lumen_view_frame frames[] = {{0, "<OMP-explicit_barrier>", "<Unknown>"},
                                     {0x7f0000003000, "GOMP_barrier", "libgomp.so.1"},
                                     {0x401000, "region._omp_fn.0", "app"},
                                     {0x402000, "region", "app"}};
  EXPECT_EQ(folded(LUMEN_VIEW_USER, frames, 4), (std::vector<std::string>{"<OMP-explicit_barrier>", "region"}));
}

}  // namespace
}  // namespace lumen::omp
