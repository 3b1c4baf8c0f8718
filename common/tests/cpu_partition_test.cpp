// Which CPUs the student's runner gets and which TimingPin pins each party to (cpu_partition.hpp):
// whole physical cores, never shared between the student and a trusted party.
#include <sched.h>

#include <algorithm>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "../src/cpu_partition.hpp"

namespace {

using cudalabs::remote::Core;
using cudalabs::remote::CpuPartition;
using cudalabs::remote::partition_cores;

// `count` cores of two hardware threads each, numbered as x86 servers do: core i is {i, i + count}.
std::vector<Core> hyperthreaded(int count) {
  std::vector<Core> cores;
  for (int i = 0; i < count; ++i) cores.push_back({i, i + count});
  return cores;
}

bool shares_a_cpu(const std::vector<int>& a, const std::vector<int>& b) {
  return std::any_of(a.begin(), a.end(), [&](int cpu) { return std::count(b.begin(), b.end(), cpu) > 0; });
}

TEST(CpuPartition, TheStudentGetsNoHardwareThreadOfATrustedCore) {
  const CpuPartition cpus = partition_cores(hyperthreaded(8));
  ASSERT_TRUE(cpus.separated());
  ASSERT_TRUE(cpus.pins());
  EXPECT_EQ(cpus.trusted, (std::vector<int>{0, 8, 1, 9}));
  EXPECT_EQ(cpus.student, (std::vector<int>{2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}));
  EXPECT_FALSE(shares_a_cpu(cpus.student, cpus.trusted));
  // Each party of a timed measurement on a core of its own, the student's within its own CPUs.
  EXPECT_EQ(cpus.judge_cpu, 0);
  EXPECT_EQ(cpus.reference_cpu, 1);
  EXPECT_EQ(cpus.student_cpu, 2);
  EXPECT_EQ(cpus.reference_core, (Core{1, 9}));
  const std::set<int> pinned{cpus.judge_cpu, cpus.reference_cpu, cpus.student_cpu};
  EXPECT_EQ(pinned.size(), 3u);
}

TEST(CpuPartition, ThreeSingleThreadedCoresStillKeepEveryPartyApart) {
  const CpuPartition cpus = partition_cores({{0}, {1}, {2}});
  EXPECT_EQ(cpus.student, (std::vector<int>{2}));
  EXPECT_TRUE(cpus.pins());
  EXPECT_EQ(cpus.student_cpu, 2);
}

TEST(CpuPartition, TwoCoresKeepTheStudentOffTheFirstButPinNothing) {
  const CpuPartition cpus = partition_cores(hyperthreaded(2));
  EXPECT_EQ(cpus.student, (std::vector<int>{1, 3}));
  EXPECT_EQ(cpus.trusted, (std::vector<int>{0, 2}));
  EXPECT_FALSE(cpus.pins());
  EXPECT_EQ(cpus.judge_cpu, -1);
}

TEST(CpuPartition, OneCoreKeepsNothingApart) {
  const CpuPartition cpus = partition_cores({{0, 1}});
  EXPECT_FALSE(cpus.separated());
  EXPECT_FALSE(cpus.pins());
  EXPECT_TRUE(partition_cores({}).student.empty());
}

TEST(CpuPartition, AllowedCoresAreExactlyThisProcesssCpus) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  std::set<int> seen;
  for (const Core& core : cudalabs::remote::allowed_cores()) {
    ASSERT_FALSE(core.empty());
    for (int cpu : core) {
      EXPECT_TRUE(CPU_ISSET(cpu, &allowed)) << cpu;
      EXPECT_TRUE(seen.insert(cpu).second) << cpu << " in two cores";
    }
  }
  EXPECT_EQ(static_cast<int>(seen.size()), CPU_COUNT(&allowed));
}

TEST(CpuPartition, AllButLeavesTheOthersInOrder) {
  EXPECT_EQ(cudalabs::remote::all_but({4, 5, 6, 7}, 5), (std::vector<int>{4, 6, 7}));
  EXPECT_EQ(cudalabs::remote::all_but({3}, 3), std::vector<int>{});
  EXPECT_EQ(cudalabs::remote::all_but({1, 2}, 9), (std::vector<int>{1, 2}));
}

}  // namespace
