#include "server/ratings/glicko2.hpp"

#include <algorithm>
#include <cmath>

namespace plateau::server {

namespace {

constexpr double kScale = 173.7178;  // Glicko-2's scale: μ = (r − 1500) / 173.7178
constexpr double kPi = 3.14159265358979323846;
constexpr double kEpsilon = 0.000001;  // the convergence tolerance of step 5

double g(double phi) { return 1 / std::sqrt(1 + 3 * phi * phi / (kPi * kPi)); }
double expected(double mu, double mu_j, double phi_j) {
  return 1 / (1 + std::exp(-g(phi_j) * (mu - mu_j)));
}

}  // namespace

Glicko glicko_idle(const Glicko& player, double periods) {
  const double phi = player.deviation / kScale;
  const double grown =
      std::sqrt(phi * phi + std::max(0.0, periods) * player.volatility * player.volatility);
  return {player.rating, std::min(grown * kScale, kGlickoMaxDeviation), player.volatility};
}

Glicko glicko_update(const Glicko& player, const std::vector<GlickoResult>& results, double tau) {
  if (results.empty()) return glicko_idle(player, 1);
  // Step 2: to the Glicko-2 scale.
  const double mu = (player.rating - 1500) / kScale;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;
  // Steps 3 and 4: the estimated variance v and the improvement Δ.
  double v_inverse = 0, delta_sum = 0;
  for (const auto& r : results) {
    const double mu_j = (r.opponent.rating - 1500) / kScale;
    const double phi_j = r.opponent.deviation / kScale;
    const double e = expected(mu, mu_j, phi_j);
    v_inverse += g(phi_j) * g(phi_j) * e * (1 - e);
    delta_sum += g(phi_j) * (r.score - e);
  }
  const double v = 1 / v_inverse;
  const double delta = v * delta_sum;
  // Step 5: the new volatility, by the Illinois algorithm.
  const double a = std::log(sigma * sigma);
  const auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau);
  };
  double big_a = a, big_b;
  if (delta * delta > phi * phi + v) {
    big_b = std::log(delta * delta - phi * phi - v);
  } else {
    int k = 1;
    while (f(a - k * tau) < 0) ++k;
    big_b = a - k * tau;
  }
  double f_a = f(big_a), f_b = f(big_b);
  for (int i = 0; i < 100 && std::abs(big_b - big_a) > kEpsilon; ++i) {
    const double c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
    const double f_c = f(c);
    if (f_c * f_b <= 0) {
      big_a = big_b;
      f_a = f_b;
    } else {
      f_a /= 2;
    }
    big_b = c;
    f_b = f_c;
  }
  const double sigma_new = std::exp(big_a / 2);
  // Steps 6 to 8: the new deviation and rating, back on the Glicko scale.
  const double phi_star = std::sqrt(phi * phi + sigma_new * sigma_new);
  const double phi_new = 1 / std::sqrt(1 / (phi_star * phi_star) + 1 / v);
  const double mu_new = mu + phi_new * phi_new * delta_sum;
  return {mu_new * kScale + 1500, std::min(phi_new * kScale, kGlickoMaxDeviation), sigma_new};
}

std::vector<std::vector<GlickoResult>> glicko_pairwise(const std::vector<Glicko>& ratings,
                                                       const std::vector<int>& ranks) {
  std::vector<std::vector<GlickoResult>> out(ratings.size());
  for (std::size_t i = 0; i < ratings.size(); ++i)
    for (std::size_t j = 0; j < ratings.size(); ++j) {
      if (i == j) continue;
      const double score = ranks[i] < ranks[j] ? 1 : ranks[i] == ranks[j] ? 0.5 : 0;
      out[i].push_back({ratings[j], score});
    }
  return out;
}

}  // namespace plateau::server
