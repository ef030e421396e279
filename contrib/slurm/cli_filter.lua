--[[
cli_filter.lua: ckpt's walltime advisor in sbatch/salloc/srun (docs/advise.md).

Before each submission, asks `ckpt-advise` (the answer of `ckpt advise`
alone, a binary that answers in a few milliseconds: go install
./cmd/ckpt-advise; `ckpt advise` when it is missing), from a model learnt
with `ckpt advise learn`, for the walltime to request and sets the job's
--time, --time-min and --comment (ckpt:advice=...). The site chooses:

  CKPT_ADVISE_POLICY = "respect"  advise only jobs whose user gave no --time
                       "within"   advise every job, never above the user's
                                  --time (ckpt's sequence ends with it)

The filter never blocks or fails a submission: when both are missing, slow
(longer than CKPT_ADVISE_TIMEOUT), fails or answers something unreadable,
it logs one line and lets the job through unchanged.

Enable: CliFilterPlugins=cli_filter/lua in slurm.conf, this file as
cli_filter.lua beside slurm.conf (Debian: slurm-wlm-basic-plugins ships
cli_filter_lua.so). The settings below can be overridden by the
environment of the submitting process (tests do).
--]]

local ADVISE = os.getenv("CKPT_ADVISE_BIN") or "/usr/local/bin/ckpt-advise"
local FULL = os.getenv("CKPT_BIN") or "/usr/local/bin/ckpt"
local MODEL = os.getenv("CKPT_ADVISE_MODEL") or "/etc/slurm/ckpt-advise.model"
local POLICY = os.getenv("CKPT_ADVISE_POLICY") or "respect"
local TIMEOUT = os.getenv("CKPT_ADVISE_TIMEOUT") or "0.5"

local function log(fmt, ...)
	slurm.log_info("ckpt advise: " .. fmt, ...)
end

-- quote makes s one shell word.
local function quote(s)
	return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- given is false for an option the user did not set.
local function given(v)
	return v ~= nil and v ~= "" and v ~= "unset" and v ~= "(null)"
end

-- time_given is false for a --time the user did not set: nil, or Slurm's
-- NO_VAL minutes as 22.05 renders an unset time ("2982616-04:14:00").
local function time_given(v)
	return given(v) and not string.match(tostring(v), "^2982616%-04:14")
end

-- leading_number of "4", "2-8", "4k" is "4"; nil otherwise.
local function leading_number(v)
	if not given(v) then
		return nil
	end
	return string.match(tostring(v), "^(%d+)")
end

-- field reads one string field of ckpt's one-object JSON answer.
local function field(out, name)
	return string.match(out, '"' .. name .. '"%s*:%s*"([^"]*)"')
end

-- ask runs bin (with args, quoted) under the timeout: its output, or nil
-- and why; and timeout's exit status (124: too slow, 126: not executable,
-- 127: not found). The shell prints the status: Slurm's Lua 5.1 does not
-- return it from close.
local function ask(bin, args)
	local cmd = table.concat({ "timeout", "-k", "0.2", TIMEOUT, quote(bin), table.concat(args, " ") }, " ")
		.. " 2>/dev/null; echo ckpt-exit=$?"
	local p = io.popen(cmd, "r")
	if p == nil then
		return nil, "cannot start " .. bin, nil
	end
	local out = p:read("*a") or ""
	p:close()
	local body, code = string.match(out, "^(.-)ckpt%-exit=(%d+)%s*$")
	code = tonumber(code)
	if code ~= 0 then
		return nil, string.format("%s exit %s (missing, slow or failing: job left as it is)", bin, tostring(code)), code
	end
	return body, nil, code
end

local function advise(options)
	local user = os.getenv("SLURM_JOB_USER") or os.getenv("USER") or os.getenv("LOGNAME")
	if not given(user) then
		return nil, "no user name in the environment"
	end
	local args = { "--json", "--model", quote(MODEL), "--user", quote(user) }
	local function add(flag, v)
		if given(v) then
			table.insert(args, flag)
			table.insert(args, quote(v))
		end
	end
	add("--account", options["account"])
	add("--job-name", options["job-name"])
	add("--partition", options["partition"])
	add("--nodes", leading_number(options["nodes"]))
	if time_given(options["time"]) then
		add("--time", options["time"])
	end
	-- ckpt-advise answers as `ckpt advise` does; the full ckpt when it
	-- cannot be run (timeout's 127: not found, 126: not executable).
	-- Never after a slow or failing ckpt-advise: one timeout at most.
	local out, why, code = ask(ADVISE, args)
	if code ~= 126 and code ~= 127 then
		return out, why, ADVISE
	end
	table.insert(args, 1, "advise")
	out, why = ask(FULL, args)
	return out, why, FULL
end

function slurm_cli_pre_submit(options, offset)
	local ok, err = pcall(function()
		local has_time = time_given(options["time"])
		if POLICY == "respect" and has_time then
			return
		end
		if given(options["comment"]) and string.match(tostring(options["comment"]), "^ckpt:chain=") then
			-- A reservation of a ckpt chain: its time is the chain's plan.
			return
		end
		if time_given(options["time-min"]) then
			-- The user's own --time-min could exceed the advised --time and
			-- make sbatch refuse the job: leave such a job alone.
			log("the job sets --time-min: left as it is")
			return
		end
		local out, why, bin = advise(options)
		if out == nil then
			log("%s", why)
			return
		end
		local keep = string.match(out, '"keep_user_request"%s*:%s*(%a+)')
		local t, tmin, comment = field(out, "slurm_time"), field(out, "slurm_time_min"), field(out, "comment")
		if keep == nil or comment == nil or not string.match(comment, "^ckpt:advice=[%w:,%-]+$") then
			log("unreadable answer from %s: job left as it is", bin)
			return
		end
		if keep == "true" then
			options["comment"] = given(options["comment"]) and (options["comment"] .. " " .. comment) or comment
			return
		end
		if not (t and string.match(t, "^[%d:%-]+$") and tmin and string.match(tmin, "^[%d:%-]+$")) then
			log("unreadable time in the answer of %s: job left as it is", bin)
			return
		end
		options["time"] = t
		options["time-min"] = tmin
		options["comment"] = given(options["comment"]) and (options["comment"] .. " " .. comment) or comment
		log("--time=%s --time-min=%s (%s)", t, tmin, comment)
	end)
	if not ok then
		log("filter error, job left as it is: %s", tostring(err))
	end
	return slurm.SUCCESS
end

function slurm_cli_setup_defaults(options, early)
	return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, jobid, stepid)
	return slurm.SUCCESS
end
