-- data-links.lua: a plot's data goes with it. After each plot (a figure of
-- an X.svg drawn from X.csv, or from X less its last -suffix .csv) comes a
-- link that carries the CSV itself, so the self-contained page and the
-- course PDF hold the numbers it draws: a download in a browser, a file
-- attached to the PDF (weasyprint's rel="attachment", tagged by
-- tools/pdf.py). Paths are the handouts', from handouts/.
local function read(path)
  local file = io.open("handouts/" .. path, "rb")
  if not file then return nil end
  local data = file:read("a")
  file:close()
  return data
end

local function percent(text)
  return (text:gsub("[^%w%-%._~,;:/=]", function(c) return string.format("%%%02X", c:byte()) end))
end

-- the CSV a plot at path was drawn from, and its text
local function plot_data(path)
  local stem = path:match("^(.*)%.svg$")
  if not stem or path:match("^%a[%w+.-]*:") then return nil end
  for _, csv in ipairs({stem .. ".csv", (stem:gsub("%-[^/-]*$", "")) .. ".csv"}) do
    local data = read(csv)
    if data then return csv, data end
  end
end

function Para(para)
  local image = para.content[1]
  if #para.content ~= 1 or image.t ~= "Image" then return nil end
  local csv, data = plot_data(image.src)
  if not csv then return nil end
  local shown = csv:gsub("^[./]*", "")
  local link = pandoc.Link(pandoc.Code(shown), "data:text/csv;charset=utf-8," .. percent(data), "",
                           {download = shown:gsub("^results/", ""):gsub("/", "-"), rel = "attachment"})
  return {para, pandoc.Para({pandoc.Str("The"), pandoc.Space(), pandoc.Str("plot's"), pandoc.Space(),
                             pandoc.Str("data:"), pandoc.Space(), link})}
end
