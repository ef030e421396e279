// Package distribution holds the probability laws ckpt plans against: the
// nine families of Table 1 of Gainaru et al., "Reservation and
// Checkpointing Strategies for Stochastic Jobs" (IPDPS 2020), plus Normal,
// finite discrete laws, truncation to a bounded support with
// renormalisation (Section 4.2), the discretisation of Eq. (9) (Algorithm
// 1), empirical laws built from past walltimes, maximum-likelihood fitting
// with model selection, and the spec strings the CLI accepts
// ("lognormal:mu=3,sigma=0.5").
//
// Every family takes an optional placement in its spec: a location shift
// loc (Shift, the Shifted law X + loc) and truncation bounds a, b applied
// to the shifted law ("exponential:rate=0.667,loc=1,a=0,b=9"), as the
// SCALA'19 code and the walltime laws of Table 3 of the paper (a Gamma
// placed on [146 s, 407 s]) need.
//
// Every law is over non-negative job durations in the caller's time unit
// (the CLI uses seconds); Normal is the one family whose support reaches
// below zero, and Bound cuts it at zero.
//
// # Families
//
// Each family is a value type whose exported fields are its parameters
// (Exponential, Weibull, Gamma, LogNormal, Pareto, TruncatedNormal, Uniform,
// Beta, BoundedPareto, Normal). Methods assume the parameters are valid; call
// Validate (Parse, Fit and Truncate do) before using a hand-built value.
// Besides the Distribution interface every family has LogPDF and
// InvSurvival, the inverse of the survival function, which reaches far
// upper quantiles such as Q(1−ν) without the rounding of 1−ν. The fittable
// families also have NumParams, the number of parameters their fit
// estimates (ParamCounter).
//
// # From a law to the planner's input
//
// Section 4.2 of the paper truncates the infinite-support laws at
// b = Q(1−ν) with ν = 10⁻⁷ (Bound, DefaultTailMass) and Algorithm 1 then
// discretises the bounded law on n equal chunks, Eq. (9) (Discretize).
// Discretize costs O(n) evaluations of CDF or Survival and O(n) memory.
//
// # Fitting
//
// Fit is maximum likelihood for one family and costs O(N) for N samples
// (O(N) per Newton step for Gamma and Weibull, which take a few dozen steps;
// the truncated normal reduces the data to its extremes and two moments in
// O(N) and then optimises in O(1) per step). FitRanked is the one way to fit
// several families and rank them, by AIC or BIC with each family's
// NumParams, computing each one's Kolmogorov–Smirnov statistic: O(N log N)
// for the sort plus one fit per family, O(N) memory. FitAuto ranks all of
// FitFamilies and reports the best by AIC (BestAIC) and by BIC (BestBIC);
// FitHistory turns past walltimes into the law to plan with (the family of
// least BIC, a named family, or the empirical law) with the
// Kolmogorov–Smirnov check against its 1% critical value. Empirical turns
// past walltimes into a Discrete directly in O(N log N).
//
// Parsing a spec string is O(length of the spec).
package distribution
