// Reading and writing the small files a run uses (inputs, keys, session configs) with the checks
// every caller needs: a regular file (never /dev/zero or a FIFO that would hang the reader), a
// size limit, and, for secrets, a file only its owner can read or write.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shufflempc {

// The whole file. Throws std::invalid_argument naming `what` and the path if it cannot be opened,
// is not a regular file, or holds more than `max_bytes`.
[[nodiscard]] std::string read_text_file(const std::string& path, std::string_view what, std::size_t max_bytes = std::size_t{1} << 30);

// BLAKE2b-256 of the file's bytes as hex (read as read_text_file reads, with its errors).
[[nodiscard]] std::string file_digest(const std::string& path, std::string_view what);

// Writes `text` to a new file with mode 0600: refuses (std::invalid_argument naming `what`) if
// `path` exists already or is a symbolic link, so a secret is never written over another file.
void write_private_file(const std::string& path, std::string_view text, std::string_view what);

// Creates or replaces the regular file `path` with `text` (a session config, a report): never
// through a symbolic link and never into a FIFO or a device (std::invalid_argument naming `what`).
// Missing directories on the way are made (prepare_output_file).
void write_file(const std::string& path, std::string_view text, std::string_view what);

// Makes ready to write an output the user named (a figure, a table, a transcript), before the work
// that fills it: makes the directories on the way that do not exist yet (`out/figure.png` writes
// into a new out/), and throws std::invalid_argument naming `what` and the path when one cannot be
// made, a part of the way is not a directory, or the directory cannot be written. "-" (standard
// output) and "" pass.
void prepare_output_file(const std::string& path, std::string_view what);

// Throws std::invalid_argument if `path` is readable or writable by anyone but its owner.
void check_private_file(const std::string& path, std::string_view what);

}  // namespace shufflempc
