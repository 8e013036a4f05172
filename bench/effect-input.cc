// A C++ translation unit for bench/effect.sh's compile workload: the
// standard library's heavier headers and code that instantiates them.
#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

namespace {
using Value = std::variant<long, double, std::string>;

struct Record {
	std::string name;
	std::map<std::string, Value> fields;
	std::vector<std::shared_ptr<Record>> children;
};

template <typename T> std::string show(const T &v)
{
	std::ostringstream o;
	o << v;
	return o.str();
}

std::string show_value(const Value &v)
{
	return std::visit([](const auto &x) { return show(x); }, v);
}

std::vector<std::string> tokens(const std::string &s)
{
	static const std::regex word("[A-Za-z_][A-Za-z0-9_]*|[0-9]+(\\.[0-9]+)?");
	std::vector<std::string> out;
	for (auto it = std::sregex_iterator(s.begin(), s.end(), word); it != std::sregex_iterator(); ++it)
		out.push_back(it->str());
	return out;
}

std::unordered_map<std::string, std::size_t> histogram(const std::vector<std::string> &words)
{
	std::unordered_map<std::string, std::size_t> h;
	for (const auto &w : words)
		++h[w];
	return h;
}

std::shared_ptr<Record> build(int depth, int width)
{
	auto r = std::make_shared<Record>();
	r->name = "node" + std::to_string(depth);
	r->fields["depth"] = static_cast<long>(depth);
	r->fields["weight"] = depth * 1.5;
	r->fields["label"] = std::string(static_cast<std::size_t>(depth), 'x');
	if (depth > 0)
		for (int i = 0; i < width; i++)
			r->children.push_back(build(depth - 1, width));
	return r;
}

std::size_t walk(const Record &r, const std::function<void(const Record &)> &f)
{
	f(r);
	return std::accumulate(r.children.begin(), r.children.end(), std::size_t{1},
			       [&](std::size_t n, const auto &c) { return n + walk(*c, f); });
}
} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv, argv + argc);
	std::string text;
	for (const auto &a : args)
		text += a + " ";
	auto words = tokens(text);
	auto h = histogram(words);
	std::vector<std::pair<std::string, std::size_t>> sorted(h.begin(), h.end());
	std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
		return std::tie(b.second, a.first) < std::tie(a.second, b.first);
	});
	std::set<std::string> names;
	auto root = build(4, 3);
	std::size_t n = walk(*root, [&](const Record &r) {
		names.insert(r.name);
		for (const auto &[k, v] : r.fields)
			names.insert(k + "=" + show_value(v));
	});
	std::cout << n << " records, " << names.size() << " names, " << sorted.size() << " words\n";
	return 0;
}
