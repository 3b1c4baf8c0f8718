#include "sqlite_database.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <sqlite3.h>

namespace labgrade::batch {

SqliteDatabase::SqliteDatabase(const std::filesystem::path& file) : file_(file) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(file.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("cannot open the results database {}: {}", file.string(), message));
  }
  sqlite3_busy_timeout(db_, 10000);
  execute("PRAGMA foreign_keys = ON;");
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(db_); }

void SqliteDatabase::execute(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("results database {}: {}", file_.string(), message));
  }
}

void SqliteDatabase::fail(const std::string& what) const {
  throw std::runtime_error(fmt::format("results database {}: {}: {}", file_.string(), what, sqlite3_errmsg(db_)));
}

SqliteStatement::SqliteStatement(SqliteDatabase& database, const std::string& sql) : database_(database) {
  if (sqlite3_prepare_v2(database.handle(), sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) {
    database.fail("cannot prepare \"" + sql + "\"");
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

SqliteStatement& SqliteStatement::bind(int index, const std::string& text) {
  if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
    database_.fail("cannot bind a text parameter");
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(statement_, index, value) != SQLITE_OK) database_.fail("cannot bind a number");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) database_.fail("cannot bind an integer");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(statement_, index) != SQLITE_OK) database_.fail("cannot bind NULL");
  return *this;
}

bool SqliteStatement::step() {
  const int result = sqlite3_step(statement_);
  if (result == SQLITE_ROW) return true;
  if (result == SQLITE_DONE) return false;
  database_.fail("a statement failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
  reset();
}

void SqliteStatement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::string SqliteStatement::text(int column) const {
  const auto* data = sqlite3_column_text(statement_, column);
  return data ? std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)))
              : std::string();
}

double SqliteStatement::real(int column) const { return sqlite3_column_double(statement_, column); }

std::int64_t SqliteStatement::integer(int column) const { return sqlite3_column_int64(statement_, column); }

std::optional<double> SqliteStatement::optional_real(int column) const {
  return is_null(column) ? std::nullopt : std::optional<double>(real(column));
}

std::optional<std::int64_t> SqliteStatement::optional_integer(int column) const {
  return is_null(column) ? std::nullopt : std::optional<std::int64_t>(integer(column));
}

SqliteTransaction::SqliteTransaction(SqliteDatabase& database) : database_(database) {
  database_.execute("BEGIN IMMEDIATE;");
}

SqliteTransaction::~SqliteTransaction() {
  if (done_) return;
  try {
    database_.execute("ROLLBACK;");
  } catch (...) {  // nothing more to do: SQLite rolls back an unfinished transaction itself
  }
}

void SqliteTransaction::commit() {
  database_.execute("COMMIT;");
  done_ = true;
}

}  // namespace labgrade::batch
