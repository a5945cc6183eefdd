// Unit tests for the number helpers: two's-complement little-endian integers
// and their decimal text, and Python's float repr and float() parsing.
// Expected values were produced by CPython 3.11 and are written out here.
#include "reference/value/numeric.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>

namespace serialcheck {
namespace {

using namespace std::string_view_literals;

struct ReprCase {
  std::uint64_t bits;
  const char* repr;
};

// repr(float) from CPython for each bit pattern.
constexpr ReprCase kReprTable[] = {
    {0x0000000000000000ULL, "0.0"},
    {0x8000000000000000ULL, "-0.0"},
    {0x3ff0000000000000ULL, "1.0"},
    {0xbff0000000000000ULL, "-1.0"},
    {0x3fb999999999999aULL, "0.1"},
    {0x3fc999999999999aULL, "0.2"},
    {0x3fd3333333333333ULL, "0.3"},
    {0x3fd5555555555555ULL, "0.3333333333333333"},
    {0x3fe5555555555555ULL, "0.6666666666666666"},
    {0x3ff8000000000000ULL, "1.5"},
    {0x405ec00000000000ULL, "123.0"},
    {0xc05ee00000000000ULL, "-123.5"},
    {0x4059000000000000ULL, "100.0"},
    {0x430c6bf526340000ULL, "1000000000000000.0"},
    {0x4341c37937e08000ULL, "1e+16"},
    {0x4376345785d8a000ULL, "1e+17"},
    {0x4341c37937e07fffULL, "9999999999999998.0"},
    {0x43118b54f22aeb00ULL, "1234567890123456.0"},
    {0x4345ee2a2eb5a5c4ULL, "1.2345678901234568e+16"},
    {0x3f1a36e2eb1c432dULL, "0.0001"},
    {0x3ee4f8b588e368f1ULL, "1e-05"},
    {0x3f1f75104d551d69ULL, "0.00012"},
    {0x3e8421f5f40d8376ULL, "1.5e-07"},
    {0x0000000000000001ULL, "5e-324"},
    {0x0010000000000000ULL, "2.2250738585072014e-308"},
    {0x7fefffffffffffffULL, "1.7976931348623157e+308"},
    {0x7ff0000000000000ULL, "inf"},
    {0xfff0000000000000ULL, "-inf"},
    {0x7ff8000000000000ULL, "nan"},
    {0x4480f0cf064dd592ULL, "1e+22"},
    {0x44b52d02c7e14af6ULL, "1e+23"},
    {0x419d6f34547df3b6ULL, "123456789.123"},
    {0x400921fb54442d18ULL, "3.141592653589793"},
    {0x4005bf0a8b145769ULL, "2.718281828459045"},
    {0x3fe0000000000000ULL, "0.5"},
    {0x3fd0000000000000ULL, "0.25"},
    {0x3fc0000000000000ULL, "0.125"},
    {0x54b249ad2594c37dULL, "1e+100"},
    {0x2b2bff2ee48e0530ULL, "1e-100"},
    {0x81a56e1fc2f8f359ULL, "-1e-300"},
    {0x4011666666666666ULL, "4.35"},
    {0x3fd3333333333334ULL, "0.30000000000000004"},
    {0x3e7ad7f29abcaf48ULL, "1e-07"},
    {0x3ff0000000000001ULL, "1.0000000000000002"},
    {0x4340000000000000ULL, "9007199254740992.0"},
    {0x4340000000000000ULL, "9007199254740992.0"},
    {0x43e0000000000000ULL, "9.223372036854776e+18"},
    {0x43f0000000000000ULL, "1.8446744073709552e+19"},
    {0xc340000000000000ULL, "-9007199254740992.0"},
    {0x3f50624dd2f1a9fcULL, "0.001"},
    {0x3f1a36e2eb1c432dULL, "0.0001"},
    {0x3ee4f8b588e368f1ULL, "1e-05"},
    {0x3c36b082c2148b8eULL, "1.23e-18"},
    {0x3f0a36e2eb1c432dULL, "5e-05"},
    {0x00001f4b537320e3ULL, "1.7e-310"},
    {0x7953a6f252e6b438ULL, "2.7216092808335446e+276"},
    {0x5351d2286513270eULL, "2.3233198881469e+93"},
    {0x691f8412128b2f33ULL, "2.3558459513947972e+198"},
    {0x4a98cc2e5d9dc9f8ULL, "2.319469273766672e+51"},
    {0x40f3a77ae8e25d94ULL, "80503.681856504"},
    {0x8b0051ad099950d8ULL, "-1.086847153644306e-255"},
    {0x08f105c76b0d549bULL, "1.319802866137463e-265"},
    {0xc688b7671738f7d9ULL, "-6.266356115726005e+31"},
    {0x69d64a570f21ddb6ULL, "6.824876503085954e+201"},
    {0x1c93182cf28c105dULL, "4.940936846887147e-171"},
    {0xcaf3057a93bd04cfULL, "-1.1386802021941775e+53"},
    {0x7cf5ed660cb1e29cULL, "8.752693173165977e+293"},
    {0x4740cb9f0becd7b0ULL, "1.744133597091969e+35"},
    {0x35a659214a23d596ULL, "2.9865692316748857e-50"},
    {0x8f13d0e08a6a63ecULL, "-4.868977691028368e-236"},
    {0x6876d4178f6d0558ULL, "1.6664576788176494e+195"},
    {0x4a71dfc81a61dbe2ULL, "4.179695235804459e+50"},
    {0x0c789ae95f557203ULL, "1.3746405127922145e-248"},
    {0x07a102da907a70c3ULL, "6.289086022413648e-272"},
    {0xd71758aa7f150524ULL, "-3.509113651954773e+111"},
    {0xa835f977c6f87718ULL, "-5.576996205710768e-115"},
    {0xf63353c395e761d1ULL, "-2.3773069786084834e+261"},
    {0x265ec3d65c90a958ULL, "7.271743784907204e-124"},
    {0x170298cdcb5c7427ULL, "7.774512814278136e-198"},
    {0xc986b75714f4733fULL, "-1.6210802403613625e+46"},
    {0xbf5ff90386734721ULL, "-0.0019514593530413698"},
    {0xb973661dbabced20ULL, "-5.977744852071831e-32"},
    {0x7d765e9c9be4bcfcULL, "2.285880515036382e+296"},
    {0xc18703de1e398f10ULL, "-48266179.7781049"},
    {0xe0e9fe7f2a3af4d4ULL, "-7.137777130825572e+158"},
    {0xf77565f126e87555ULL, "-2.75990181011815e+267"},
    {0x0504be4b6bf46c69ULL, "1.7437039741717127e-284"},
    {0xc76f06bdc3baea9eULL, "-1.2887834541636946e+36"},
    {0xd8ff704757124242ULL, "-5.073893217893773e+120"},
    {0xbf930a2598289fcdULL, "-0.01859339467242176"},
    {0x6b84107f119a72d1ULL, "8.24544339715501e+209"},
    {0xa28d5ec0f1d69ed6ULL, "-3.010633931983195e-142"},
    {0x5502f08db2715945ULL, "3.3140631768523595e+101"},
    {0xdd96a1070f88080bULL, "-6.898641758772075e+142"},
    {0xc9fa2459a5aa3c81ULL, "-2.387910339758213e+48"},
    {0xc0b0d416c8b43958ULL, "-4308.089"},
    {0x40be3ccf5c28f5c3ULL, "7740.81"},
    {0xc0c2a65ed916872bULL, "-9548.741"},
    {0xc0a6956f837b4a23ULL, "-2890.7178"},
    {0xc0bdea0000000000ULL, "-7658.0"},
    {0xc0b603d70a3d70a4ULL, "-5635.84"},
    {0xc0bcf53333333333ULL, "-7413.2"},
    {0xc09fe82f8b157258ULL, "-2042.046429"},
    {0xc05179999999999aULL, "-69.9"},
    {0xc08fc204189374bcULL, "-1016.252"},
    {0xc0b15b3333333333ULL, "-4443.2"},
    {0x40b8f198c51116a9ULL, "6385.596757"},
    {0x408f6320e410b631ULL, "1004.39106"},
    {0xc09a7847ae147ae1ULL, "-1694.07"},
    {0x40ac8cec083126e9ULL, "3654.461"},
    {0x40c1e14ccccccccdULL, "9154.6"},
    {0xc0c04a2666666666ULL, "-8340.3"},
    {0xc0b4f0e666666666ULL, "-5360.9"},
    {0xc0c30f5e9118c198ULL, "-9758.738803"},
    {0x409bd9e147ae147bULL, "1782.47"},
};

TEST(FloatRepr, MatchesCPythonTable) {
  for (const ReprCase& c : kReprTable) {
    double v = std::bit_cast<double>(c.bits);
    EXPECT_EQ(float_repr(v), c.repr) << std::hex << c.bits;
  }
}

TEST(FloatRepr, ExponentRules) {
  EXPECT_EQ(float_repr(1e16), "1e+16");
  EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(float_repr(1e-5), "1e-05");
  EXPECT_EQ(float_repr(1e-4), "0.0001");
  EXPECT_EQ(float_repr(1.5e-7), "1.5e-07");
  EXPECT_EQ(float_repr(123.0), "123.0");
  EXPECT_EQ(float_repr(-0.0), "-0.0");
  EXPECT_EQ(float_repr(1e100), "1e+100");
  EXPECT_EQ(float_repr(5e-324), "5e-324");
  EXPECT_EQ(float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(float_repr(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(float_repr(-std::numeric_limits<double>::quiet_NaN()), "nan");
}

TEST(FloatRepr, RoundTripsThroughParseForRandomBits) {
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    double v = std::bit_cast<double>(rng());
    if (std::isnan(v)) continue;
    std::string text = float_repr(v);
    auto back = parse_float(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(*back), std::bit_cast<std::uint64_t>(v)) << text;
  }
}

TEST(ParseFloat, AcceptsPythonForms) {
  EXPECT_EQ(parse_float("1.5"), 1.5);
  EXPECT_EQ(parse_float("+1"), 1.0);
  EXPECT_EQ(parse_float("1."), 1.0);
  EXPECT_EQ(parse_float(".5"), 0.5);
  EXPECT_EQ(parse_float("-.5e-3"), -0.0005);
  EXPECT_EQ(parse_float("1E5"), 100000.0);
  EXPECT_EQ(parse_float("00012.5000"), 12.5);
  EXPECT_EQ(parse_float("Infinity"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_float("-INF"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_float("1e500"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(parse_float("-1e500"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::bit_cast<std::uint64_t>(*parse_float("1e-400")), 0u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(*parse_float("-1e-400")), 0x8000000000000000u);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(*parse_float("-0.0")), 0x8000000000000000u);
  EXPECT_EQ(parse_float("4.9e-324"), 5e-324);
  EXPECT_EQ(parse_float("1e-320"), 1e-320);
  EXPECT_EQ(parse_float("0.000000000000000000000000000001e30"), 1.0);
  EXPECT_EQ(parse_float("1e-99999999999999999999"), 0.0);
  auto nan = parse_float("nan");
  ASSERT_TRUE(nan.has_value());
  EXPECT_EQ(std::bit_cast<std::uint64_t>(*nan), 0x7ff8000000000000u);
  auto neg_nan = parse_float("-NaN");
  ASSERT_TRUE(neg_nan.has_value());
  EXPECT_TRUE(std::isnan(*neg_nan));
  EXPECT_TRUE(std::signbit(*neg_nan));  // as CPython's float("-nan")
}

TEST(ParseFloat, RejectsOtherText) {
  for (std::string_view bad :
       {""sv, "."sv, "e5"sv, "1e"sv, "1e+"sv, " 1"sv, "1 "sv, "1_0"sv, "0x10"sv, "nan(1)"sv,
        "infx"sv, "--1"sv, "+-1"sv, "1.2.3"sv, "1e5.5"sv, "+"sv, "in"sv}) {
    EXPECT_FALSE(parse_float(bad).has_value()) << bad;
  }
}

struct IntCase {
  std::string_view decimal;
  std::string_view twos_le;  // minimal
};

// Python: n.to_bytes(..., 'little', signed=True), minimal length.
constexpr IntCase kIntTable[] = {
    {"0", ""sv},
    {"1", "\x01"sv},
    {"-1", "\xff"sv},
    {"127", "\x7f"sv},
    {"128", "\x80\x00"sv},
    {"-128", "\x80"sv},
    {"-129", "\x7f\xff"sv},
    {"255", "\xff\x00"sv},
    {"256", "\x00\x01"sv},
    {"-256", "\x00\xff"sv},
    {"-257", "\xff\xfe"sv},
    {"32767", "\xff\x7f"sv},
    {"32768", "\x00\x80\x00"sv},
    {"-32768", "\x00\x80"sv},
    {"-32769", "\xff\x7f\xff"sv},
    {"2147483648", "\x00\x00\x00\x80\x00"sv},
    {"-2147483649", "\xff\xff\xff\x7f\xff"sv},
    {"9223372036854775807", "\xff\xff\xff\xff\xff\xff\xff\x7f"sv},
    {"-9223372036854775808", "\x00\x00\x00\x00\x00\x00\x00\x80"sv},
    {"9223372036854775808", "\x00\x00\x00\x00\x00\x00\x00\x80\x00"sv},
    {"-9223372036854775809", "\xff\xff\xff\xff\xff\xff\xff\x7f\xff"sv},
    {"18446744073709551616", "\x00\x00\x00\x00\x00\x00\x00\x00\x01"sv},
    {"-18446744073709551616", "\x00\x00\x00\x00\x00\x00\x00\x00\xff"sv},
    {"100000000000000000000", "\x00\x00\x10\x63\x2d\x5e\xc7\x6b\x05"sv},
    {"-100000000000000000000", "\x00\x00\xf0\x9c\xd2\xa1\x38\x94\xfa"sv},
    {"-16777216", "\x00\x00\x00\xff"sv},
    {"-18446744073709551616", "\x00\x00\x00\x00\x00\x00\x00\x00\xff"sv},
    {"-4722366482869645213696", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff"sv},
    {"18446744073709551616", "\x00\x00\x00\x00\x00\x00\x00\x00\x01"sv},
};

TEST(TwosComplement, DecimalTable) {
  for (const IntCase& c : kIntTable) {
    EXPECT_EQ(twos_le_to_decimal(c.twos_le), c.decimal);
    auto le = decimal_to_twos_le(c.decimal);
    ASSERT_TRUE(le.has_value()) << c.decimal;
    EXPECT_EQ(*le, c.twos_le) << c.decimal;
  }
}

TEST(TwosComplement, Minimal) {
  EXPECT_EQ(minimal_twos_le(""), "");
  EXPECT_EQ(minimal_twos_le("\x00"sv), "");
  EXPECT_EQ(minimal_twos_le("\x00\x00\x00"sv), "");
  EXPECT_EQ(minimal_twos_le("\xff\xff\xff"sv), "\xff");
  EXPECT_EQ(minimal_twos_le("\x80\x00"sv), "\x80\x00"sv);  // 128 needs the zero
  EXPECT_EQ(minimal_twos_le("\x80\xff"sv), "\x80");        // -128
  EXPECT_EQ(minimal_twos_le("\x7f\xff"sv), "\x7f\xff");    // -129
  EXPECT_EQ(minimal_twos_le("\x01\x00\x00\x00"sv), "\x01");
}

TEST(TwosComplement, Int64) {
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, std::int64_t{255}, std::int64_t{-256},
        std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    std::string le = int64_to_twos_le(v);
    EXPECT_EQ(le, minimal_twos_le(le));
    std::int64_t back = 7;
    ASSERT_TRUE(twos_le_to_int64(le, back));
    EXPECT_EQ(back, v);
    EXPECT_EQ(twos_le_to_decimal(le), std::to_string(v));
  }
  std::int64_t out = 0;
  EXPECT_FALSE(twos_le_to_int64(*decimal_to_twos_le("9223372036854775808"), out));
  EXPECT_FALSE(twos_le_to_int64(*decimal_to_twos_le("-9223372036854775809"), out));
  // Redundant sign bytes do not stop a value from fitting.
  ASSERT_TRUE(twos_le_to_int64("\xfe\xff\xff\xff\xff\xff\xff\xff\xff\xff"sv, out));
  EXPECT_EQ(out, -2);
}

constexpr const char* kTwoPow3333 =
    "2152660530718481163750597473890395513856249715125537701472649158943405824467"
    "3326910373351259059682147424141685835083908514107317468834855763334891563119"
    "2005796556482497758314906282141426155658128227811247766556571293099314783331"
    "1339903225444592514232524805363002310734990993998750970011074920592131760960"
    "3983135773492359760717846592275817381044698761676974247215867743009912769516"
    "4817899207021985208336084969858154577571653810449157086662363226595896736201"
    "5626591785974574766839759695484989201815844834385005466531676954633227872119"
    "7990029254486670748865032018299495700273192855725138925044905204884045511597"
    "7569715687484365765588824508277616875004009354236317648619936344625081616873"
    "2621938197618739776705743463073896919621056073564550180246731594411314317736"
    "9672825585007883065176523094231331203635506197993087960867651077990232692560"
    "8969684722358631523840646767871997233286040770000987842435148217744104013217"
    "7621374260081720767414496316969647041233376182694018499883013986822961571306"
    "3476148769390592";
constexpr const char* k256Pow415 =
    "2627759436912208451843991056995111711250304828034103639492979930350837188070"
    "4744763639344798656838558867360456341655161760384909019573798539227162552635"
    "7428950874612424021380500832692170600168613559339902058784877066771624491371"
    "0131717804497793596475250006546633680096424553221131555189300440175942091016"
    "1112226286001415723532527578461691138970579543062712704120932303478897423726"
    "1740599617946759287519634972971380099574772717833443709304642610590694258058"
    "5481679426238494588427441034527574709247857463848883626137300970011264492333"
    "7390172429793299253985634787963251587247549872711351226861456548930719618649"
    "6056781845073688678697295542331075286870128606245504942163008233184914083097"
    "2438889401390063203986503250822628075709296964800476294246498528334123923018"
    "7588898419199076007295560417762855473187873776847031202231019382312295767286"
    "2511822170847938871875789511562496622663623986817612112347593039238408219259"
    "9635466626076319296160273824425838673380586160515159301615007308133498011848"
    "568865816576";
constexpr const char* kRandom1000 =
    "-974895930469571403920108831744885465565949906496693748889575142017026133270"
    "7218699609857275383557957140802756754284381395570895963774336287503568713733"
    "9430618569596074246586438431196012086206036636259045487656269293191678075857"
    "1936631203386194897493046400540247791342218533389310280363982011063876210607"
    "2083220127358405606689953521957986870345426033433029527996098524403935356490"
    "0099151505183249758293583974104858322727031987995049013391903841593905001920"
    "3263568080532418648493730019808707432419811336867074452719730963014905319508"
    "1353458828309206994147835373507302919288344808363621325019613166113583499462"
    "7354054041990228347184701025340664394535671614542607006964324397906772776979"
    "7298082647244169294505760719002121985763190817273823091136935674278070960921"
    "3668939626422208974397555390154275935207957840177720913710303417768024578123"
    "7442760852843402689498392218886845422872437219851046359397264259774457068855"
    "9052345674970671697510636649945400543117462147072402389685747010175793574108"
    "0717805196511";
constexpr const char* kRandom1000Hex =
    "216bf8168dfc9af2f7e9ae87baa4e19f56320705e295854a3465429af08c8894eb5b4dedf1c7"
    "0a6ffe0adc5e22c02fcd3083b3380d273953a7fcefba1264c1a9eceab0e9c19054b00eabdbaa"
    "7e291ffc074d320927e706979b0ef13db240c0130e4ccbe1e7158bdd21b8ecc051ff004b3ed4"
    "21e6500d32fd6bd3aaf053ddf5fd63f90844b5e3182729e79fcee256318192ad4969f9a83140"
    "b501581330f2172414524492c6731dc02914f451330a56dbb07e64fc5659197564f3a747ab36"
    "e889852f33c76827d5e1430d84134a7004c642de277aea03d9741d71dfad60b6a00c6dd50104"
    "97383bd3acf80b7c13f9e77313f64fa09a432a622b1d68c7c085e7ed1703bce4581245c199d5"
    "44d66a7c64d783e8fc205cc8d896b8ebcc3c6d7872c2c80daa6c8c29fece459417b62f5663e4"
    "11daea0636e9a39940a527dad9ef7ccd6e9335763b72e45437372d084ff2cdc277d1b521e042"
    "027b0b8b031cca573a735ea8cdcfed663f7f24ba15f60415d56c2fa674cf10766f66e7e08e17"
    "530f365e9b3b69b046bc56d010efb513912f288be9da2b3549a9decd0722d2b9243e4afc";

TEST(TwosComplement, ThousandDigitNumbers) {
  // 2**3333: 416 zero bytes then 0x20.
  std::string pow2(416, '\0');
  pow2.push_back('\x20');
  EXPECT_EQ(twos_le_to_decimal(pow2), kTwoPow3333);
  EXPECT_EQ(decimal_to_twos_le(kTwoPow3333), pow2);
  // -(2**3333): the top byte is -32.
  std::string neg = pow2;
  neg.back() = '\xe0';
  EXPECT_EQ(twos_le_to_decimal(neg), "-" + std::string(kTwoPow3333));
  EXPECT_EQ(decimal_to_twos_le("-" + std::string(kTwoPow3333)), neg);
  // 256**415 needs a zero byte on top; -(256**415) is 415 zeros then 0xff.
  std::string p256(415, '\0');
  p256.push_back('\x01');
  EXPECT_EQ(twos_le_to_decimal(p256), k256Pow415);
  EXPECT_EQ(std::string(k256Pow415).size(), 1000u);
  std::string n256(415, '\0');
  n256.push_back('\xff');
  EXPECT_EQ(twos_le_to_decimal(n256), "-" + std::string(k256Pow415));
  EXPECT_EQ(decimal_to_twos_le("-" + std::string(k256Pow415)), n256);
  // A random negative 1000-digit number.
  std::string hex = kRandom1000Hex;
  std::string le;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    le.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  EXPECT_EQ(twos_le_to_decimal(le), kRandom1000);
  EXPECT_EQ(decimal_to_twos_le(kRandom1000), le);
}

TEST(TwosComplement, NegativePowersOf256) {
  std::string dec = "1";
  for (int k = 1; k <= 40; ++k) {
    // dec = 256**k by schoolbook doubling of the decimal text.
    for (int bit = 0; bit < 8; ++bit) {
      int carry = 0;
      for (std::size_t i = dec.size(); i-- > 0;) {
        int d = (dec[i] - '0') * 2 + carry;
        dec[i] = static_cast<char>('0' + d % 10);
        carry = d / 10;
      }
      if (carry != 0) dec.insert(dec.begin(), static_cast<char>('0' + carry));
    }
    std::string expect(static_cast<std::size_t>(k), '\0');
    expect.push_back('\xff');
    EXPECT_EQ(decimal_to_twos_le("-" + dec), expect) << k;
    EXPECT_EQ(twos_le_to_decimal(expect), "-" + dec) << k;
    std::string positive(static_cast<std::size_t>(k), '\0');
    positive.push_back('\x01');
    EXPECT_EQ(decimal_to_twos_le(dec), positive) << k;
  }
}

TEST(TwosComplement, DecimalParsing) {
  EXPECT_EQ(decimal_to_twos_le("+5"), "\x05");
  EXPECT_EQ(decimal_to_twos_le("-0"), "");
  EXPECT_EQ(decimal_to_twos_le("000000000000000000000000000012"), "\x0c");
  for (std::string_view bad :
       {""sv, "-"sv, "+"sv, "1_000"sv, " 1"sv, "1 "sv, "12L"sv, "0x1"sv, "1.0"sv, "--1"sv}) {
    EXPECT_FALSE(decimal_to_twos_le(bad).has_value()) << bad;
  }
}

TEST(TwosComplement, RandomRoundTrips) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 500; ++i) {
    std::size_t len = rng() % 300;
    std::string bytes;
    for (std::size_t k = 0; k < len; ++k) bytes.push_back(static_cast<char>(rng() & 0xff));
    std::string minimal = minimal_twos_le(bytes);
    std::string dec = twos_le_to_decimal(bytes);
    EXPECT_EQ(decimal_to_twos_le(dec), minimal) << dec;
    EXPECT_EQ(twos_le_to_decimal(minimal), dec);
  }
}

}  // namespace
}  // namespace serialcheck
