// storage/btree/overflow_test.cc
#include "storage/btree/overflow.h"

#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/io/mem_file_system.h"
#include "storage/buffer/mtr.h"
#include "storage/redo/redo_log.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 5;
const char* const kPath = "/o.ibd";

std::string Value(size_t n, char seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(seed + i * 131 % 251);
  return v;
}

class OverflowTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(/*create=*/true); }

  BufferPool::Options Options() {
    BufferPool::Options o;
    o.pool_size_bytes = 256 * kPageSize;  // smaller than the largest value: eviction
    o.num_shards = 4;
    o.write_ahead_check = [](uint64_t) { return Status::OK(); };
    o.mtr_log = [this](std::string_view payload, const std::function<void(uint64_t)>& stamp) {
      std::lock_guard<std::mutex> lock(mu_);
      lsn_ += RedoLog::FramedSize(payload.size());
      redo_.emplace_back(std::string(payload), lsn_);
      stamp(lsn_);
      return Status::OK();
    };
    return o;
  }

  void Open(bool create) {
    pool_ = std::make_unique<BufferPool>(Options());
    auto space = create ? Tablespace::Create(&fs_, kPath, kSpace, 64) : Tablespace::Open(&fs_, kPath);
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  }

  io::MemFileSystem fs_;
  std::unique_ptr<BufferPool> pool_;
  std::mutex mu_;
  uint64_t lsn_ = 0;
  std::vector<std::pair<std::string, uint64_t>> redo_;
};

TEST_F(OverflowTest, RefRoundTrips) {
  const OverflowRef ref{7, 123456789012ull, 0xfeedfacecafebeefull};
  const std::string bytes = EncodeOverflowRef(ref);
  ASSERT_EQ(bytes.size(), kOverflowRefSize);
  auto back = DecodeOverflowRef(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, ref);
  EXPECT_FALSE(DecodeOverflowRef(bytes.substr(1)).ok());
  std::string bad = bytes;
  bad[0] = 2;
  EXPECT_FALSE(DecodeOverflowRef(bad).ok());
}

TEST_F(OverflowTest, ValuesOfEverySizeRoundTrip) {
  for (size_t n : {size_t{1}, kOverflowPayload - 1, kOverflowPayload, kOverflowPayload + 1,
                   kOverflowPayload * kOverflowPagesPerMtr + 3, size_t{5} << 20}) {
    const std::string v = Value(n, static_cast<char>(n));
    auto ref = WriteOverflow(pool_.get(), kSpace, v, n);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    EXPECT_EQ(ref->length, n);
    auto read = ReadOverflow(pool_.get(), kSpace, *ref);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_TRUE(*read == v) << n;
  }
  EXPECT_FALSE(WriteOverflow(pool_.get(), kSpace, "", 1).ok());
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

TEST_F(OverflowTest, FreedPagesAreReusedAndAStaleReferenceIsCaught) {
  const std::string a = Value(3 * kOverflowPayload, 'a');
  auto ra = WriteOverflow(pool_.get(), kSpace, a, 1);
  ASSERT_TRUE(ra.ok());
  ASSERT_TRUE(FreeOverflow(pool_.get(), kSpace, *ra).ok());
  // Freeing again finds pages that are no longer the chain's.
  EXPECT_FALSE(FreeOverflow(pool_.get(), kSpace, *ra).ok());
  const std::string b = Value(3 * kOverflowPayload, 'b');
  auto rb = WriteOverflow(pool_.get(), kSpace, b, 2);
  ASSERT_TRUE(rb.ok());
  // The same pages, now another chain: the old reference fails, never
  // returning b's bytes as a's.
  auto stale = ReadOverflow(pool_.get(), kSpace, *ra);
  EXPECT_EQ(stale.status().code(), Status::Code::kCorruption);
  auto read = ReadOverflow(pool_.get(), kSpace, *rb);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(*read == b);
}

TEST_F(OverflowTest, ChainsComeBackFromTheRedoAfterACrash) {
  const std::string v = Value((size_t{1} << 20) + 17, 'x');
  auto ref = WriteOverflow(pool_.get(), kSpace, v, 42);
  ASSERT_TRUE(ref.ok());
  // Crash: nothing was flushed or synced.
  pool_.reset();
  fs_.DropUnsyncedData();
  Open(/*create=*/false);
  for (const auto& [payload, end_lsn] : redo_) ASSERT_TRUE(pool_->ApplyRedo(payload, end_lsn).ok());
  auto read = ReadOverflow(pool_.get(), kSpace, *ref);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(*read == v);
}

}  // namespace
}  // namespace sluice::storage
