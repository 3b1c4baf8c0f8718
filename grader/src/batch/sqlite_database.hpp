#pragma once
// A thin RAII layer over SQLite: one connection, prepared statements, transactions. Every call
// is checked; a failure throws std::runtime_error naming the database file and SQLite's message.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

struct sqlite3;
struct sqlite3_stmt;

namespace labgrade::batch {

class SqliteDatabase;

// A prepared statement. Parameters are bound by 1-based position; columns read by 0-based index.
class SqliteStatement {
 public:
  SqliteStatement(SqliteDatabase& database, const std::string& sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, const std::string& text);
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind_null(int index);
  template <typename T>
  SqliteStatement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  bool step();  // true while a row is available; false when done
  void run();   // steps to the end (INSERT, UPDATE, DELETE)
  void reset();

  bool is_null(int column) const;
  std::string text(int column) const;
  double real(int column) const;
  std::int64_t integer(int column) const;
  std::optional<double> optional_real(int column) const;
  std::optional<std::int64_t> optional_integer(int column) const;

 private:
  SqliteDatabase& database_;
  sqlite3_stmt* statement_ = nullptr;
};

class SqliteDatabase {
 public:
  // Opens (creating if needed) the file; waits up to a few seconds when another process holds a lock.
  explicit SqliteDatabase(const std::filesystem::path& file);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  void execute(const std::string& sql);  // one or more statements without results
  [[noreturn]] void fail(const std::string& what) const;
  sqlite3* handle() const { return db_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT; rolled back unless commit() was called.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDatabase& database);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;
  void commit();

 private:
  SqliteDatabase& database_;
  bool done_ = false;
};

}  // namespace labgrade::batch
