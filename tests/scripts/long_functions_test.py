#!/usr/bin/env python3
"""scripts/long_functions.py on small hand-written C++ sources and allow-lists."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "long_functions.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import long_functions  # noqa: E402

SOURCE = textwrap.dedent('''\
    #include <string>
    #define BRACE {
    namespace th {
    namespace {
    // a comment with a brace {
    int Free(int a) {
      const char* s = "}";  /* } */
      auto raw = R"x(})x";
      char c = '}';
      int n = 1'000;
      auto f = [&](int x) { return x; };
      if (a) {
        return f(n);
      }
      return 0;
    }
    }  // namespace
    class Widget final : public Base {
     public:
      void Run(Context& ctx) override {
        ctx.Go();
      }
      int Size() const { return 1; }
      struct Inner {
        template <typename T>
        static T Make(T t) noexcept {
          return t;
        }
      };
    };
    const int kTable[] = {1, 2, 3};
    auto Widget::Out(int x) -> int {
      return x;
    }
    }  // namespace th
    ''')


class FunctionsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "widget.cc")
        with open(self.path, "w") as f:
            f.write(SOURCE)

    def tearDown(self):
        self.dir.cleanup()

    def test_names_lines_and_lengths(self):
        # Free: lines 6-16; braces in comments, literals, lambdas and ifs do not count.
        self.assertEqual(long_functions.functions(self.path), [
            ("Free", 6, 11),
            ("Widget::Run", 20, 3),
            ("Widget::Size", 23, 1),
            ("Widget::Inner::Make", 26, 3),
            ("Widget::Out", 32, 3),
        ])


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.root.name, "core"))
        os.makedirs(os.path.join(self.root.name, "plugins", "p", "tests"))
        body = "int Long() {\n" + "  f();\n" * 5 + "}\n"
        for rel in ("core/a.cc", "plugins/p/tests/b.cc", "core/c_test.cc"):
            with open(os.path.join(self.root.name, rel), "w") as f:
                f.write(body)
        self.allowed = os.path.join(self.root.name, "allowed.txt")

    def tearDown(self):
        self.root.cleanup()

    def check(self, allowed):
        with open(self.allowed, "w") as f:
            f.write(allowed)
        return subprocess.run(
            [sys.executable, SCRIPT, "--root", self.root.name, "--max-lines", "5", "--check",
             "--allowed", self.allowed], capture_output=True, text=True)

    def test_lists_long_functions_outside_tests(self):
        out = subprocess.run([sys.executable, SCRIPT, "--root", self.root.name, "--max-lines", "5"],
                             capture_output=True, text=True).stdout
        self.assertEqual(out, "core/a.cc:1: Long (7 lines)\n")

    def test_new_long_function_fails(self):
        r = self.check("# nothing allowed\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("core/a.cc:1: Long has 7 lines (over 5)", r.stderr)

    def test_allowed_with_reason_passes(self):
        self.assertEqual(self.check("core/a.cc Long -- a table\n").returncode, 0)

    def test_entry_without_reason_or_stale_fails(self):
        r = self.check("core/a.cc Long\ncore/gone.cc Gone -- was long\n")
        self.assertEqual(r.returncode, 1)
        self.assertIn("expected '<path> <function> -- <reason>'", r.stderr)
        self.assertIn("core/gone.cc Gone is no longer over 5 lines", r.stderr)


if __name__ == "__main__":
    unittest.main()
