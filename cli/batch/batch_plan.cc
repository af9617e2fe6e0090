// Listing the inputs of a batch into its work folder, finding the outputs two inputs share, and
// sweeping the temporaries of earlier runs.
#include "batch/batch_plan.h"

#include <system_error>

#include "batch/batch_temporaries.h"
#include "conversion_options.h"

namespace fs = std::filesystem;

namespace fitsasdf::cli::batch {
namespace {

/// An item as one record value: input, relative, output, direction and size, NUL-separated
/// (no path holds a NUL).
std::string encode(const Item& item) {
  std::string v = item.input;
  v += '\0';
  v += item.relative;
  v += '\0';
  v += item.output;
  v += '\0';
  v += item.asdf_input ? '1' : '0';
  v += std::to_string(item.size);
  return v;
}

Item decode(const std::string& v) {
  Item item;
  const std::size_t a = v.find('\0');
  const std::size_t b = v.find('\0', a + 1);
  const std::size_t c = v.find('\0', b + 1);
  item.input = v.substr(0, a);
  item.relative = v.substr(a + 1, b - a - 1);
  item.output = v.substr(b + 1, c - b - 1);
  item.asdf_input = v[c + 1] == '1';
  item.size = std::stoull(v.substr(c + 2));
  return item;
}

/// Read the next record of `reader` as (index, value) into `slot`, or empty it at the end.
void advance(RecordReader& reader, std::string& key, std::string& value,
             std::optional<std::pair<std::uint64_t, std::string>>& slot) {
  if (reader.next(key, value)) {
    slot.emplace(key_index(key), std::move(value));
  } else {
    slot.reset();
  }
}

}  // namespace

Plan plan_batch(InputWalker& walker, const fs::path& outdir, const fs::path& report,
                const fs::path& work, bool by_name) {
  Plan plan;
  plan.items = work / "items";
  plan.refused = work / "refused";
  plan.removed_temporaries = remove_own_temporaries(outdir, report);

  // The inputs in order, and their outputs keyed by folder then name (so each folder's outputs
  // come together when sorted, and its temporaries are listed once).
  ExternalSorter outputs(work, "outputs", kSortBudget);
  std::optional<ExternalSorter> names;
  if (by_name) names.emplace(work, "names", kSortBudget);
  {
    RecordWriter items(plan.items);
    Item item;
    while (walker.next(item)) {
      item.asdf_input = is_asdf(item.input);
      std::error_code ec;
      const auto size = fs::file_size(item.input, ec);
      item.size = ec ? 0 : size;
      const fs::path output = (outdir / (item.asdf_input ? default_fits_name(item.relative)
                                                         : default_asdf_name(item.relative)))
                                  .lexically_normal();
      item.output = output.string();
      const std::string key = index_key(plan.count);
      items.write(key, encode(item));
      outputs.add(output.parent_path().string() + '\0' + output.filename().string(),
                  key + item.input);
      if (names) names->add(item.input, key);
      plan.bytes += item.size;
      ++plan.count;
    }
    items.close();
  }

  // Of the inputs of one output the first (the lowest index: the sort is stable) wins.
  ExternalSorter refused(work, "refused-by-index", kSortBudget);
  {
    SortedStream sorted = outputs.sorted();
    std::string key, value, group, winner, folder;
    Temporaries temporaries;
    bool first = true;
    while (sorted.next(key, value)) {
      const std::size_t nul = key.find('\0');
      const std::string output = (fs::path(key.substr(0, nul)) / key.substr(nul + 1)).string();
      if (!first && key == group) {
        refused.add(value.substr(0, 8), "its output " + output + " is the output of " + winner +
                                            " already; convert it on its own");
        ++plan.clashes;
        continue;
      }
      first = false;
      group = key;
      winner = value.substr(8);
      if (key.compare(0, nul, folder) != 0 || folder.size() != nul) {
        folder = key.substr(0, nul);
        temporaries = temporaries_in(folder);
      }
      plan.removed_temporaries += remove_temporaries_of(temporaries, key.substr(nul + 1));
    }
  }
  {
    RecordWriter out(plan.refused);
    SortedStream sorted = refused.sorted();
    std::string key, value;
    while (sorted.next(key, value)) out.write(key, value);
    out.close();
  }
  if (names) plan.by_name = names->sorted();
  return plan;
}

PlanReader::PlanReader(const Plan& plan, const fs::path& earlier)
    : items_(plan.items), refused_(plan.refused) {
  advance(refused_, key_, value_, next_refused_);
  if (!earlier.empty()) {
    earlier_.emplace(earlier);
    advance(*earlier_, key_, value_, next_earlier_);
  }
}

bool PlanReader::next(std::uint64_t& index, Item& item, std::optional<Line>& earlier) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!items_.next(key_, value_)) return false;
  index = key_index(key_);
  item = decode(value_);
  if (next_refused_ && next_refused_->first == index) {
    item.clash = std::move(next_refused_->second);
    advance(refused_, key_, value_, next_refused_);
  }
  earlier.reset();
  if (next_earlier_ && next_earlier_->first == index) {
    Line line = Line::parse(next_earlier_->second, nullptr, false);
    if (!line.is_discarded()) earlier = std::move(line);
    advance(*earlier_, key_, value_, next_earlier_);
  }
  return true;
}

}  // namespace fitsasdf::cli::batch
