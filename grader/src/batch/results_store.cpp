#include "results_store.hpp"

#include <map>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

#include "sqlite_database.hpp"

namespace labgrade::batch {

bool status::is_final(const std::string& value) {
  return value == kGraded || value == kCompileError || value == kRejected || value == kRuleViolation;
}

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (
  student_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  submitted_at INTEGER,
  files_hash TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  status TEXT NOT NULL,
  detail TEXT NOT NULL,
  raw_points REAL,
  points_possible REAL NOT NULL,
  late_days INTEGER,
  late_penalty_percent REAL NOT NULL,
  late_penalty_points REAL NOT NULL,
  total REAL,
  build_seconds REAL NOT NULL,
  test_seconds REAL NOT NULL,
  total_seconds REAL NOT NULL,
  graded_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS test_results (
  student_id TEXT NOT NULL REFERENCES submissions(student_id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  test_name TEXT NOT NULL,
  timed INTEGER NOT NULL,
  status TEXT NOT NULL,
  points_earned REAL NOT NULL,
  points_possible REAL NOT NULL,
  student_ms REAL,
  solution_ms REAL,
  PRIMARY KEY (student_id, test_name));
)sql";

constexpr const char* kSubmissionColumns =
    "student_id, name, source, submitted_at, files_hash, config_hash, status, detail, raw_points, points_possible, "
    "late_days, late_penalty_percent, late_penalty_points, total, build_seconds, test_seconds, total_seconds, "
    "graded_at";

}  // namespace

ResultsStore::ResultsStore(const std::filesystem::path& file, const std::string& lab)
    : database_(std::make_unique<SqliteDatabase>(file)), lab_(lab) {
  // WAL: readers (a --collect, a look with the sqlite3 shell) never block the batch's writes.
  database_->execute("PRAGMA journal_mode = WAL;");
  database_->execute(kSchema);
  SqliteStatement read(*database_, "SELECT value FROM meta WHERE key = 'lab'");
  if (read.step()) {
    if (read.text(0) != lab) {
      throw std::runtime_error(fmt::format("{} holds the results of lab {}, not {}: give another output directory",
                                           file.string(), read.text(0), lab));
    }
  } else {
    SqliteStatement(*database_, "INSERT INTO meta (key, value) VALUES ('lab', ?)").bind(1, lab).run();
  }
}

ResultsStore::~ResultsStore() = default;

bool ResultsStore::has_final_result(const std::string& student_id, const std::string& files_hash,
                                    const std::string& config_hash) const {
  std::lock_guard lock(mutex_);
  SqliteStatement query(*database_,
                        "SELECT status FROM submissions WHERE student_id = ? AND files_hash = ? AND config_hash = ?");
  query.bind(1, student_id).bind(2, files_hash).bind(3, config_hash);
  return query.step() && status::is_final(query.text(0));
}

void ResultsStore::save(const SubmissionRow& row) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(*database_);
  SqliteStatement(*database_, "DELETE FROM submissions WHERE student_id = ?").bind(1, row.student_id).run();
  SqliteStatement insert(*database_, fmt::format("INSERT INTO submissions ({}) VALUES "
                                                 "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                                 kSubmissionColumns));
  insert.bind(1, row.student_id).bind(2, row.name).bind(3, row.source).bind(4, row.submitted_at);
  insert.bind(5, row.files_hash).bind(6, row.config_hash).bind(7, row.status).bind(8, row.detail);
  insert.bind(9, row.raw_points).bind(10, row.points_possible).bind(11, row.late_days);
  insert.bind(12, row.late_penalty_percent).bind(13, row.late_penalty_points).bind(14, row.total);
  insert.bind(15, row.build_seconds).bind(16, row.test_seconds).bind(17, row.total_seconds);
  insert.bind(18, row.graded_at).run();
  SqliteStatement test(*database_,
                       "INSERT INTO test_results (student_id, position, test_name, timed, status, points_earned, "
                       "points_possible, student_ms, solution_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const TestRow& t : row.tests) {
    test.bind(1, row.student_id).bind(2, position++).bind(3, t.name).bind(4, std::int64_t{t.timed});
    test.bind(5, t.status).bind(6, t.points_earned).bind(7, t.points_possible);
    test.bind(8, t.student_ms).bind(9, t.solution_ms).run();
  }
  transaction.commit();
}

std::string ResultsStore::pseudonym_secret() {
  std::lock_guard lock(mutex_);
  SqliteStatement read(*database_, "SELECT value FROM meta WHERE key = 'pseudonym_secret'");
  if (read.step()) return read.text(0);
  std::random_device random;
  const std::string secret = fmt::format("{:08x}{:08x}{:08x}{:08x}", random(), random(), random(), random());
  SqliteStatement(*database_, "INSERT INTO meta (key, value) VALUES ('pseudonym_secret', ?)").bind(1, secret).run();
  return secret;
}

std::vector<SubmissionRow> ResultsStore::load_all() const {
  std::lock_guard lock(mutex_);
  std::vector<SubmissionRow> rows;
  std::map<std::string, std::size_t> index;
  SqliteStatement query(*database_,
                        fmt::format("SELECT {} FROM submissions ORDER BY student_id", kSubmissionColumns));
  while (query.step()) {
    SubmissionRow row;
    row.student_id = query.text(0);
    row.name = query.text(1);
    row.source = query.text(2);
    row.submitted_at = query.optional_integer(3);
    row.files_hash = query.text(4);
    row.config_hash = query.text(5);
    row.status = query.text(6);
    row.detail = query.text(7);
    row.raw_points = query.optional_real(8);
    row.points_possible = query.real(9);
    row.late_days = query.optional_integer(10);
    row.late_penalty_percent = query.real(11);
    row.late_penalty_points = query.real(12);
    row.total = query.optional_real(13);
    row.build_seconds = query.real(14);
    row.test_seconds = query.real(15);
    row.total_seconds = query.real(16);
    row.graded_at = query.integer(17);
    index[row.student_id] = rows.size();
    rows.push_back(std::move(row));
  }
  SqliteStatement tests(*database_,
                        "SELECT student_id, test_name, timed, status, points_earned, points_possible, student_ms, "
                        "solution_ms FROM test_results ORDER BY student_id, position");
  while (tests.step()) {
    const auto found = index.find(tests.text(0));
    if (found == index.end()) continue;
    TestRow t;
    t.name = tests.text(1);
    t.timed = tests.integer(2) != 0;
    t.status = tests.text(3);
    t.points_earned = tests.real(4);
    t.points_possible = tests.real(5);
    t.student_ms = tests.optional_real(6);
    t.solution_ms = tests.optional_real(7);
    rows[found->second].tests.push_back(std::move(t));
  }
  return rows;
}

std::size_t ResultsStore::merge_from(const std::filesystem::path& shard) {
  {
    const ResultsStore check(shard, lab_);  // refuses a shard of another lab
  }
  std::lock_guard lock(mutex_);
  SqliteStatement(*database_, "ATTACH DATABASE ? AS shard").bind(1, shard.string()).run();
  std::size_t merged = 0;
  try {
    SqliteTransaction transaction(*database_);
    database_->execute(
        "DELETE FROM test_results WHERE student_id IN (SELECT student_id FROM shard.submissions);"
        "DELETE FROM submissions WHERE student_id IN (SELECT student_id FROM shard.submissions);");
    database_->execute(fmt::format("INSERT INTO submissions ({0}) SELECT {0} FROM shard.submissions;"
                                   "INSERT INTO test_results SELECT * FROM shard.test_results;",
                                   kSubmissionColumns));
    SqliteStatement count(*database_, "SELECT COUNT(*) FROM shard.submissions");
    if (count.step()) merged = static_cast<std::size_t>(count.integer(0));
    count.reset();
    transaction.commit();
  } catch (...) {
    database_->execute("DETACH DATABASE shard;");
    throw;
  }
  database_->execute("DETACH DATABASE shard;");
  return merged;
}

}  // namespace labgrade::batch
