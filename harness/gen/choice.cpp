#include "harness/gen/choice.h"

namespace serialcheck::gen {

rc::Gen<bool> chance(int numerator, int denominator) {
  // Drawn at a fixed size so the odds do not depend on RapidCheck's size;
  // the draw shrinks towards 0, which maps to false.
  return rc::gen::map(rc::gen::resize(100, rc::gen::inRange(0, denominator)),
                      [=](int x) { return x >= denominator - numerator; });
}

}  // namespace serialcheck::gen
