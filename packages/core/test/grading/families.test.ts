import { describe, expect, it } from "vitest";
import { gradeAnswer } from "../../src/grading";

const raw = String.raw;
const same = (gold: string, pred: string) => expect(gradeAnswer(gold, pred).equivalent, `${gold} | ${pred}`).toBe(true);
const differ = (gold: string, pred: string) => expect(gradeAnswer(gold, pred).equivalent, `${gold} | ${pred}`).toBe(false);

describe("relations and inequalities", () => {
  it("reads every spelling of ≥, ≤, ≠ and both directions", () => {
    same("x >= 5", raw`x \geq 5`);
    same("x >= 5", raw`x \ge 5`);
    same(raw`x \leq 2`, "x <= 2");
    same("x < 3", raw`x \lt 3`);
    same("x != 3", raw`x \neq 3`);
    same(raw`x \ne 3`, raw`3 \ne x`);
    same(raw`x \leq 5`, raw`5 \geq x`);
    same("x < 1", "-x > -1");
  });

  it("tells different relations apart", () => {
    differ("x > 5", "x < 5");
    differ(raw`x \geq 5`, raw`x \leq 5`);
    differ("x > 5", raw`x \ge 5`);
    differ("x < 1", "x > -1");
  });

  it("compares an inequality with the interval it describes", () => {
    same("(0, 1)", "0 < f(x) < 1");
    same(raw`(0, \infty)`, "x > 0");
    same(raw`[-2, 7]`, raw`-2 \le x \le 7`);
    same(raw`x \in [a, b]`, raw`a \le x \le b`);
    same(raw`(-\infty, 3) \cup (3, \infty)`, raw`x \neq 3`);
    same(raw`\{x \mid x > 0\}`, raw`(0, \infty)`);
    same(raw`(-\infty, \infty)`, raw`\mathbb{R}`);
    differ("(0, 1)", raw`0 \le x < 1`);
    differ(raw`[1, 2)`, raw`1 \le x \le 2`);
  });
});

describe("labelled answers and chains", () => {
  it("drops the label of a labelled value", () => {
    same("(3, 2)", "(p,q)=(3,2)");
    same("5", "x = 5");
    same("45, 2", "k = 45, n = 2");
    same(raw`-5, \frac{14}{3}`, raw`x = -5,\ p = \frac{14}{3}`);
    same("4, 5", "AB=4,CD=5");
    same(raw`\frac{1}{\sqrt{6}}`, raw`\frac{NO}{BO}=\frac{1}{\sqrt{6}}`);
    differ("(3, 2)", "(p,q)=(2,3)");
    differ("7 = 11a+c", "11a+c");
  });

  it("takes the last side of a chain of equalities, and the exact value before an approximation", () => {
    same("11", "x = 5+5+1 = 11");
    same("x = 11", "x = 5+5+1 = 7 = 11");
    same("20", "5 + 15 = 20");
    same(raw`\frac13`, raw`x = \frac13 \approx 0.33`);
    same("11", raw`x \approx 11`);
    differ("12", "x = 5+5+1 = 11");
  });

  it("reads ± as both values", () => {
    same(raw`1 \pm \sqrt{19}`, raw`1 + \sqrt{19}, 1 - \sqrt{19}`);
    same(raw`\pm 2021`, "-2021, 2021");
    differ(raw`\pm 2`, "2");
  });
});

describe("numbers as written", () => {
  it("reads thousands separators with or without LaTeX spacing", () => {
    same("11111111100", raw`11,\!111,\!111,\!100`);
    same("32349", raw`32,\! 349`);
    same("1000", "1{,}000");
    same("1000", raw`1\,000`);
    same("7425000", "7,425,000");
  });

  it("reads a decimal comma where the other answer is one number", () => {
    same("1000.99", "1000,99");
    same("1.22", "1,22");
    same("0.111", "0,111");
    same("3.5", "3{,}5");
    // Against a list, the same text is two numbers.
    same(raw`\{1, 22\}`, "1,22");
    differ("1.22", "1, 22");
  });

  it("reads currency as its amount", () => {
    same("7", raw`\$7.00`);
    same("7", raw`\boxed{\$7.00}`);
    same("15", raw`\boxed{\15}`);
    same("18", "So she makes $18 every day.");
  });

  it("does not take a rounded decimal for the exact value", () => {
    differ(raw`\frac{1}{3}`, "0.33");
    differ(raw`\pi`, "3.14159");
    differ(raw`\sqrt{2}`, "1.414");
    same(raw`\frac{1}{3}`, "0.333333");
  });
});

describe("matrices", () => {
  it("reads a matrix in any environment, inline or displayed", () => {
    same(raw`\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}`, raw`\begin{bmatrix}1 & 2 \\ 3 & 4\end{bmatrix}`);
    same(raw`\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}`, raw`Special matrix: $ \left[\begin{array}{cc}1 & 2 \\3 & 4\end{array}\right] $`);
    same(raw`\begin{pmatrix}1 \\ 2\end{pmatrix}`, "(1, 2)");
    differ(raw`\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}`, raw`\begin{pmatrix}1 & 2 \\ 3 & 5\end{pmatrix}`);
    differ(raw`\begin{pmatrix}1 & 2 \\ 3 & 4\end{pmatrix}`, raw`\begin{pmatrix}1 & 3 \\ 2 & 4\end{pmatrix}`);
  });
});

describe("units", () => {
  it("ignores a unit only one side names, or both name alike", () => {
    same("5", raw`5\text{ cm}`);
    same(raw`5\text{ cm}`, "5 centimeters");
    same(raw`15\mbox{ cm}^2`, "15 square centimeters");
    same(raw`6\text{ feet}`, "6 ft");
  });

  it("tells different units apart", () => {
    differ(raw`5\text{ cm}`, raw`5\text{ m}`);
    differ("5 cm", "5 m");
    differ(raw`15\text{ cm}^2`, raw`15\text{ cm}`);
  });
});

describe("structures: near misses", () => {
  it("keeps order where it matters and brackets exact", () => {
    differ("(3, 2)", "(2, 3)");
    differ("[1, 2)", "[1, 2]");
    same(raw`\{1, 2, 3\}`, raw`\boxed{1}, \boxed{2}, \boxed{3}`);
    same("{1,2,3}", raw`\boxed{1} and \boxed{2} and \boxed{3}`);
  });
});
