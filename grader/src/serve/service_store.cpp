#include "serve/service_store.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/random.h>
#include <unistd.h>

#include "batch/sqlite_database.hpp"
#include "remote_submit/service_api.hpp"
#include "serve/sha256.hpp"

namespace labgrade::serve {
namespace fs = std::filesystem;
using batch::SqliteStatement;
using batch::SqliteTransaction;
namespace api = service_api;

namespace {

constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS tokens (
  student_id TEXT PRIMARY KEY,
  token_sha256 TEXT NOT NULL UNIQUE,
  issued_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  student_id TEXT NOT NULL,
  lab TEXT NOT NULL,
  mode TEXT NOT NULL,
  archive TEXT NOT NULL,
  state TEXT NOT NULL,
  received_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  status TEXT,
  detail TEXT,
  points_earned REAL,
  points_possible REAL,
  exit_code INTEGER,
  grade_seconds REAL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, id);
CREATE INDEX IF NOT EXISTS jobs_by_student ON jobs (student_id, received_at);
CREATE TABLE IF NOT EXISTS job_reports (
  job_id INTEGER NOT NULL REFERENCES jobs (id),
  file TEXT NOT NULL,
  content BLOB NOT NULL,
  PRIMARY KEY (job_id, file)
);
)";

constexpr const char* kJobColumns =
    "id, student_id, lab, mode, archive, state, received_at, status, detail, points_earned, points_possible, "
    "exit_code, grade_seconds";

Job read_job(const SqliteStatement& row) {
  Job job;
  job.id = row.integer(0);
  job.student_id = row.text(1);
  job.lab = row.text(2);
  job.mode = row.text(3);
  job.archive = row.text(4);
  job.state = row.text(5);
  job.received_at = row.integer(6);
  job.status = row.text(7);
  job.detail = row.text(8);
  job.points_earned = row.optional_real(9);
  job.points_possible = row.is_null(10) ? 0 : row.real(10);
  if (const auto code = row.optional_integer(11)) job.exit_code = static_cast<int>(*code);
  job.grade_seconds = row.is_null(12) ? 0 : row.real(12);
  return job;
}

int sqlite3_changes_of(batch::SqliteDatabase& database) { return sqlite3_changes(database.handle()); }
std::int64_t last_insert_id_of(batch::SqliteDatabase& database) { return sqlite3_last_insert_rowid(database.handle()); }

// A closing descriptor.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// A new file (never an existing one), on disk when this returns: its bytes and its directory entry.
void write_file_durably(const fs::path& file, const std::string& bytes) {
  const FileDescriptor out(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (out.get() < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", file.string(), std::strerror(errno)));
  for (std::size_t written = 0; written < bytes.size();) {
    const ssize_t n = ::write(out.get(), bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(out.get()) != 0) throw std::runtime_error(fmt::format("cannot sync {}: {}", file.string(), std::strerror(errno)));
  const FileDescriptor folder(::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() >= 0) ::fsync(folder.get());
}

std::string random_token() {
  unsigned char bytes[32];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    const ssize_t got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (got < 0) throw std::runtime_error("cannot read random bytes for a token (getrandom failed)");
    filled += static_cast<std::size_t>(got);
  }
  std::string token = "clt_";  // recognisable in a leaked file or a log
  for (const unsigned char byte : bytes) token += fmt::format("{:02x}", byte);
  return token;
}

}  // namespace

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

ServiceStore::ServiceStore(const fs::path& data_dir) : uploads_(data_dir / "uploads") {
  // Tokens' hashes and students' code: the service user's only. A folder that was there already
  // keeps its mode (it may be a shared one); its uploads/ does not.
  std::error_code error;
  const bool created = fs::create_directories(data_dir, error);
  if (!error) fs::create_directories(uploads_, error);
  if (error) throw std::runtime_error(fmt::format("cannot create {}: {}", uploads_.string(), error.message()));
  if (created) fs::permissions(data_dir, fs::perms::owner_all, fs::perm_options::replace, error);
  fs::permissions(uploads_, fs::perms::owner_all, fs::perm_options::replace, error);
  database_ = std::make_unique<batch::SqliteDatabase>(data_dir / "service.sqlite");
  database_->execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;");
  database_->execute(kSchema);
}

ServiceStore::~ServiceStore() = default;

std::string ServiceStore::issue_token(const std::string& student_id, bool replace) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*database_);
  SqliteStatement live(*database_, "SELECT 1 FROM tokens WHERE student_id = ? AND revoked_at IS NULL");
  live.bind(1, student_id);
  if (live.step() && !replace) return "";
  const std::string token = random_token();
  SqliteStatement(*database_,
                  "INSERT OR REPLACE INTO tokens (student_id, token_sha256, issued_at, revoked_at) VALUES (?, ?, ?, NULL)")
      .bind(1, student_id)
      .bind(2, sha256_hex(token))
      .bind(3, unix_now())
      .run();
  transaction.commit();
  return token;
}

bool ServiceStore::revoke_token(const std::string& student_id) {
  std::lock_guard lock(mutex_);
  SqliteStatement(*database_, "UPDATE tokens SET revoked_at = ? WHERE student_id = ? AND revoked_at IS NULL")
      .bind(1, unix_now())
      .bind(2, student_id)
      .run();
  return sqlite3_changes_of(*database_) > 0;
}

std::vector<TokenRow> ServiceStore::tokens() const {
  std::lock_guard lock(mutex_);
  SqliteStatement rows(*database_, "SELECT student_id, issued_at, revoked_at FROM tokens ORDER BY student_id");
  std::vector<TokenRow> result;
  while (rows.step()) result.push_back({rows.text(0), rows.integer(1), rows.optional_integer(2)});
  return result;
}

std::optional<std::string> ServiceStore::student_for_token(const std::string& token) const {
  if (token.empty()) return std::nullopt;
  std::lock_guard lock(mutex_);
  SqliteStatement row(*database_, "SELECT student_id FROM tokens WHERE token_sha256 = ? AND revoked_at IS NULL");
  row.bind(1, sha256_hex(token));
  if (!row.step()) return std::nullopt;
  return row.text(0);
}

std::int64_t ServiceStore::enqueue(const std::string& student_id, const std::string& lab, const std::string& mode,
                                   const std::string& archive_bytes) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*database_);
  SqliteStatement(*database_,
                  "INSERT INTO jobs (student_id, lab, mode, archive, state, received_at) VALUES (?, ?, ?, '', ?, ?)")
      .bind(1, student_id)
      .bind(2, lab)
      .bind(3, mode)
      .bind(4, std::string(api::kQueued))
      .bind(5, unix_now())
      .run();
  const std::int64_t id = last_insert_id_of(*database_);
  // Named by the id alone (AUTOINCREMENT never reuses one); written and synced before the commit,
  // so a committed row always has its file. A crash before the commit leaves an unused file.
  const fs::path archive = uploads_ / fmt::format("{}.tar.gz", id);
  write_file_durably(archive, archive_bytes);
  SqliteStatement(*database_, "UPDATE jobs SET archive = ? WHERE id = ?").bind(1, archive.string()).bind(2, id).run();
  transaction.commit();
  return id;
}

std::size_t ServiceStore::requeue_interrupted() {
  std::lock_guard lock(mutex_);
  SqliteStatement(*database_, "UPDATE jobs SET state = ?, started_at = NULL WHERE state = ?")
      .bind(1, std::string(api::kQueued))
      .bind(2, std::string(api::kRunning))
      .run();
  return static_cast<std::size_t>(sqlite3_changes_of(*database_));
}

std::optional<Job> ServiceStore::claim_next() {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*database_);
  SqliteStatement next(*database_, fmt::format("SELECT {} FROM jobs WHERE state = ? ORDER BY id LIMIT 1", kJobColumns));
  next.bind(1, std::string(api::kQueued));
  if (!next.step()) return std::nullopt;
  Job job = read_job(next);
  next.reset();
  SqliteStatement(*database_, "UPDATE jobs SET state = ?, started_at = ?, attempts = attempts + 1 WHERE id = ?")
      .bind(1, std::string(api::kRunning))
      .bind(2, unix_now())
      .bind(3, job.id)
      .run();
  transaction.commit();
  job.state = api::kRunning;
  return job;
}

void ServiceStore::finish(std::int64_t id, const JobOutcome& outcome) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*database_);
  SqliteStatement(*database_,
                  "UPDATE jobs SET state = ?, finished_at = ?, status = ?, detail = ?, points_earned = ?, "
                  "points_possible = ?, exit_code = ?, grade_seconds = ? WHERE id = ?")
      .bind(1, std::string(api::kDone))
      .bind(2, unix_now())
      .bind(3, outcome.status)
      .bind(4, outcome.detail)
      .bind(5, outcome.points_earned)
      .bind(6, outcome.points_possible)
      .bind(7, static_cast<std::int64_t>(outcome.exit_code))
      .bind(8, outcome.grade_seconds)
      .bind(9, id)
      .run();
  SqliteStatement insert(*database_, "INSERT OR REPLACE INTO job_reports (job_id, file, content) VALUES (?, ?, ?)");
  for (const auto& [file, content] : outcome.reports) insert.bind(1, id).bind(2, file).bind(3, content).run();
  transaction.commit();
}

std::optional<Job> ServiceStore::job_of(std::int64_t id, const std::string& student_id) const {
  std::lock_guard lock(mutex_);
  SqliteStatement row(*database_, fmt::format("SELECT {} FROM jobs WHERE id = ? AND student_id = ?", kJobColumns));
  row.bind(1, id).bind(2, student_id);
  if (!row.step()) return std::nullopt;
  return read_job(row);
}

std::size_t ServiceStore::position(std::int64_t id) const {
  std::lock_guard lock(mutex_);
  SqliteStatement ahead(*database_, "SELECT COUNT(*) FROM jobs WHERE id < ? AND state IN (?, ?)");
  ahead.bind(1, id).bind(2, std::string(api::kQueued)).bind(3, std::string(api::kRunning));
  ahead.step();
  return static_cast<std::size_t>(ahead.integer(0));
}

std::optional<std::string> ServiceStore::report_of(std::int64_t id, const std::string& student_id,
                                                   const std::string& file) const {
  std::lock_guard lock(mutex_);
  SqliteStatement row(*database_,
                      "SELECT r.content FROM job_reports r JOIN jobs j ON j.id = r.job_id "
                      "WHERE r.job_id = ? AND j.student_id = ? AND r.file = ?");
  row.bind(1, id).bind(2, student_id).bind(3, file);
  if (!row.step()) return std::nullopt;
  return row.text(0);
}

std::size_t ServiceStore::submissions_since(const std::string& student_id, std::int64_t since) const {
  std::lock_guard lock(mutex_);
  SqliteStatement count(*database_, "SELECT COUNT(*) FROM jobs WHERE student_id = ? AND received_at >= ?");
  count.bind(1, student_id).bind(2, since);
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

std::size_t ServiceStore::counted_runs(const std::string& student_id, const std::string& lab, const std::string& mode,
                                      std::int64_t since) const {
  std::lock_guard lock(mutex_);
  SqliteStatement count(*database_,
                        "SELECT COUNT(*) FROM jobs WHERE student_id = ? AND lab = ? AND mode = ? AND received_at >= ? "
                        "AND NOT (state = ? AND status IN ('no_cuda_device', 'machine_busy', 'error'))");
  count.bind(1, student_id).bind(2, lab).bind(3, mode).bind(4, since).bind(5, std::string(api::kDone));
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

std::vector<Job> ServiceStore::jobs_of_lab(const std::string& lab) const {
  std::lock_guard lock(mutex_);
  SqliteStatement rows(*database_, fmt::format("SELECT {} FROM jobs WHERE lab = ? ORDER BY student_id, id", kJobColumns));
  rows.bind(1, lab);
  std::vector<Job> jobs;
  while (rows.step()) jobs.push_back(read_job(rows));
  return jobs;
}

std::vector<Job> ServiceStore::jobs_of_student(const std::string& student_id, const std::string& lab) const {
  std::lock_guard lock(mutex_);
  SqliteStatement rows(*database_,
                       fmt::format("SELECT {} FROM jobs WHERE student_id = ? AND lab = ? ORDER BY id", kJobColumns));
  rows.bind(1, student_id).bind(2, lab);
  std::vector<Job> jobs;
  while (rows.step()) jobs.push_back(read_job(rows));
  return jobs;
}

std::size_t ServiceStore::queue_length() const {
  std::lock_guard lock(mutex_);
  SqliteStatement count(*database_, "SELECT COUNT(*) FROM jobs WHERE state IN (?, ?)");
  count.bind(1, std::string(api::kQueued)).bind(2, std::string(api::kRunning));
  count.step();
  return static_cast<std::size_t>(count.integer(0));
}

}  // namespace labgrade::serve
